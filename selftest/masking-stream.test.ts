/**
 * The masker of the output pix-certify client passes on from the command it certifies: every
 * registered secret masked wherever the writes split it, the other bytes (colours, UTF-8, binary)
 * unchanged, each piece written as it comes but for an end that may still become a secret, so that
 * a long output without a line break is never held.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { maskingStream } from '../src/secrets/masking-stream.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { secretRunsIn } from './support/leaks.ts';

const SECRET = randomBytes(32).toString('hex');
const TOKEN = randomBytes(32).toString('hex');
registerSecret(SECRET);
registerSecret(TOKEN, 'token');

/** The stream's output for these writes, each written once the one before came out. */
async function passed(pieces: readonly Buffer[]): Promise<Buffer> {
  const stream = maskingStream();
  const out: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => out.push(chunk));
  for (const piece of pieces) {
    stream.write(piece);
    await new Promise(setImmediate);
  }
  stream.end();
  await new Promise((resolve) => stream.on('end', resolve));
  return Buffer.concat(out);
}

describe('the console masker', () => {
  it('masks a secret and a token whole, at every split of them between two writes', async () => {
    for (const value of [SECRET, TOKEN]) {
      const line = Buffer.from(`got ${value} from the provider\n`);
      for (let at = 1; at < line.length; at++) {
        const text = (await passed([line.subarray(0, at), line.subarray(at)])).toString();
        assert.deepEqual(secretRunsIn(text, value), [], `split at ${at}: ${text}`);
        assert.match(text, /^got \*\*\*\(64 chars[^)]*\) from the provider\n$/, `split at ${at}`);
      }
    }
  });

  it('leaves every other byte as it was: colours, UTF-8 split between writes, binary', async () => {
    const colour = Buffer.from('\u001b[31mFAILED\u001b[0m ');
    const accented = Buffer.from('pagamento não ');
    const binary = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]);
    const whole = Buffer.concat([colour, accented, binary, Buffer.from(`${SECRET}\n`)]);
    const split = colour.length + accented.indexOf(0xc3) + 1;
    const out = await passed([whole.subarray(0, split), whole.subarray(split)]);
    assert.deepEqual(
      out.subarray(0, colour.length + accented.length + binary.length),
      whole.subarray(0, colour.length + accented.length + binary.length),
    );
    assert.equal(out.subarray(colour.length + accented.length + binary.length).toString(), '***(64 chars)\n');
  });

  it('writes each piece as it comes, holding only an end that may begin a secret, shorter than the longest', async () => {
    const stream = maskingStream();
    let written = 0;
    stream.on('data', (chunk: Buffer) => (written += chunk.length));
    const piece = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    // 16 MiB without a line break: held back at most the 7 characters that could begin a secret's 8.
    for (let i = 0; i < 256; i++) {
      stream.write(piece);
      sent += piece.length;
      await new Promise(setImmediate);
      assert.ok(written >= sent - 7, `piece ${i}: ${sent - written} bytes held`);
    }
    stream.write(Buffer.from(' '));
    sent += 1;
    await new Promise(setImmediate);
    assert.equal(written, sent, 'an end no secret begins with is written at once');
    stream.write(Buffer.from(`and now ${SECRET.slice(0, 20)}`));
    await new Promise(setImmediate);
    assert.equal(written, sent + 'and now '.length, 'the beginning of a secret waits for what follows');
    stream.end(Buffer.from(`${SECRET.slice(20)} done`));
    await new Promise((resolve) => stream.on('end', resolve));
    assert.equal(written, sent + 'and now ***(64 chars) done'.length);
  });
});
