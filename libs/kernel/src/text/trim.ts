// Hand-written trims: a regex such as `/[x]+$/` retries the whole run from every position of a long
// run that is not at the end, which is quadratic in the run's length.

/** `text` without its trailing code points that satisfy `drop` (astral characters are tested whole). */
export function trimEndWhile(text: string, drop: (ch: string) => boolean): string {
  let end = text.length;
  while (end > 0) {
    const low = text.charCodeAt(end - 1);
    const width = end > 1 && low >= 0xdc00 && low <= 0xdfff && isHighSurrogate(text.charCodeAt(end - 2)) ? 2 : 1;
    if (!drop(text.slice(end - width, end))) break;
    end -= width;
  }
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without its leading code points that satisfy `drop`. */
export function trimStartWhile(text: string, drop: (ch: string) => boolean): string {
  let start = 0;
  while (start < text.length) {
    const width = isHighSurrogate(text.charCodeAt(start)) && start + 1 < text.length ? 2 : 1;
    if (!drop(text.slice(start, start + width))) break;
    start += width;
  }
  return start === 0 ? text : text.slice(start);
}

/** `text` without trailing `char`s (one UTF-16 unit, e.g. `/`). */
export function trimEndChar(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
