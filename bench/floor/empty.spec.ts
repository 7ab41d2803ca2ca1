// Two tests that do nothing: what Playwright's runner and two workers cost before a suite does anything.
import { test } from '@playwright/test';

test('first empty test', () => {});
test('second empty test', () => {});
