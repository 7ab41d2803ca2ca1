/**
 * A strict XML 1.0 parser for the self-tests: saxes rejects what XML forbids (U+FFFE, U+FFFF, lone
 * surrogates, control characters, unbalanced tags), as a CI system reading junit.xml would.
 */
import { SaxesParser } from 'saxes';

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The text directly inside the element, entities decoded. */
  text: string;
}

/** Every element in document order; throws on anything that is not well-formed XML 1.0. */
export function parseXml(text: string): XmlElement[] {
  const parser = new SaxesParser({ xmlns: false });
  const elements: XmlElement[] = [];
  const open: XmlElement[] = [];
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attributes: { ...tag.attributes }, text: '' };
    elements.push(element);
    if (!tag.isSelfClosing) open.push(element);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) open.pop();
  });
  parser.on('text', (chunk) => {
    const current = open.at(-1);
    if (current !== undefined) current.text += chunk;
  });
  parser.write(text).close();
  if (failure !== undefined) throw failure;
  return elements;
}
