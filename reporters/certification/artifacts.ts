/**
 * Every artifact of a certification but its JSON, rendered in one place: each is laid out from a
 * visible copy, where characters that could act on a terminal are shown escaped, never obeyed (and,
 * for the console, line breaks inside values too). The
 * JSON, which holds the data exactly, is written after them with their hashes (integrity.ts). The
 * certification was scrubbed of secrets when it was built, so nothing here can leak one either.
 */
import { renderConsole } from './console.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import type { Layout } from './layout.ts';
import { renderMarkdown } from './markdown.ts';
import type { Certification } from '../../src/report/model.ts';
import type { ReportPaths } from './text.ts';
import { visible, visibleJson, visibleLine } from '../../src/base/visible.ts';

export interface Artifacts {
  readonly html: string;
  readonly markdown: string;
  readonly junit: string;
  /** The closing lines for the terminal, coloured when the layout says so. */
  readonly console: string;
}

export function renderArtifacts(report: Certification, paths: ReportPaths, layout: Layout): Artifacts {
  const display = visibleJson(report);
  const shownPaths = visibleJson(paths);
  // On a terminal no value may break its line and forge the next; a suite error's lines are its own.
  const lines = { ...visibleJson(report, visibleLine), suiteErrors: display.suiteErrors };
  return {
    html: visible(renderHtml(display)),
    markdown: visible(renderMarkdown(display, shownPaths)),
    junit: visible(renderJunit(display)),
    console: renderConsole(lines, visibleJson(paths, visibleLine), layout),
  };
}
