import { defineConfig } from '@playwright/test';
// The configuration's one module of src/: pix-certify's workers load it before Playwright's hooks.
import { playwrightOptions } from './src/run/playwright-options.ts';

export default defineConfig(playwrightOptions());
