import { jsonStringBytes } from './json-bytes';

describe('jsonStringBytes', () => {
  it('is the byte length of JSON.stringify for quotes, backslashes, control characters and non-ASCII text', () => {
    for (const text of [
      '',
      'plain',
      'a "quoted" \\ path',
      'tab\tnew\nline\r\f\b',
      '\u0001\u001f\u0000x',
      'ünï 🐉 深色',
    ]) {
      expect([text, jsonStringBytes(text)]).toEqual([text, Buffer.byteLength(JSON.stringify(text), 'utf8')]);
    }
  });
});
