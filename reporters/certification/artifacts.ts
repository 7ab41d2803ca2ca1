/**
 * Every artifact of a certification, rendered in one place: the JSON holds the data exactly (with
 * characters that could act on a terminal as JSON escapes), and every text artifact is laid out
 * from a visible copy, where such characters are shown escaped, never obeyed. The certification was
 * scrubbed of secrets when it was built, so nothing here can leak one either.
 */
import { renderConsole } from './console.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import type { Layout } from './layout.ts';
import { renderMarkdown } from './markdown.ts';
import type { Certification } from './model.ts';
import type { ReportPaths } from './text.ts';
import { jsonText, visible, visibleJson } from './visible.ts';

export interface Artifacts {
  readonly json: string;
  readonly html: string;
  readonly markdown: string;
  readonly junit: string;
  /** The closing lines for the terminal, coloured when the layout says so. */
  readonly console: string;
}

export function renderArtifacts(report: Certification, paths: ReportPaths, layout: Layout): Artifacts {
  const display = visibleJson(report);
  const shownPaths = visibleJson(paths);
  return {
    json: jsonText(report),
    html: visible(renderHtml(display)),
    markdown: visible(renderMarkdown(display, shownPaths)),
    junit: visible(renderJunit(display)),
    console: renderConsole(display, shownPaths, layout),
  };
}
