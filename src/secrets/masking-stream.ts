/**
 * A byte stream with every registered secret masked as it passes (the output of the command pix-certify
 * client certifies, on its way to the console, which CI keeps). Only the registered forms are replaced,
 * nothing else: the command's colours and bytes stay as they were. Each piece is written as soon as it
 * comes, but for an end that could still become a secret (shorter than the longest form), kept for the
 * next piece, so a secret split across two writes is masked and the memory held stays bounded.
 */
import { Transform } from 'node:stream';
import { maskRegisteredForms, maskRegisteredStart, sync } from './registry.ts';

/** Characters a mask brings in beyond the bytes read (its …). */
const BEYOND_A_BYTE = /([\u0100-\uffff]+)/;

/**
 * The text back as bytes: read as latin1, each character up to U+00FF is the byte it was, so binary
 * output and UTF-8 split across pieces pass unchanged; what a mask brought in is written as UTF-8.
 * The run's secrets are ASCII (hex and base64url), the same characters whichever way bytes are read.
 */
function bytesOf(text: string): Buffer {
  if (!BEYOND_A_BYTE.test(text)) return Buffer.from(text, 'latin1');
  return Buffer.concat(
    text.split(BEYOND_A_BYTE).map((part, i) => Buffer.from(part, i % 2 === 0 ? 'latin1' : 'utf8')),
  );
}

export function maskingStream(): Transform {
  let kept = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      // As every masking, with what other processes of the run registered since.
      sync();
      const text = `${kept}${chunk.toString('latin1')}`;
      const { masked, rest } = maskRegisteredStart(text);
      kept = text.slice(rest);
      done(null, bytesOf(masked));
    },
    flush(done) {
      sync();
      done(null, bytesOf(maskRegisteredForms(kept)));
    },
  });
}
