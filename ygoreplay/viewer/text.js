// Text from a file or a request (names, titles, notes, log lines), shown as it is: every control
// character, bidirectional control, zero-width character, line separator and unpaired surrogate
// becomes a visible escape ("\u202e"), so a crafted name cannot reverse or hide the text around it
// nor pass for another. The same characters as ygoreplay/text.py escapes on a terminal (a test
// compares the two rules).

const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\u2028\u2029\ufeff\ud800-\udfff]/gu;
const NAMED = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e" };

function escaped(ch) {
  const code = ch.charCodeAt(0);
  if (NAMED[ch]) return NAMED[ch];
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

// Every string in ``value`` (an answer of the service, however deep) with those characters shown.
export function visible(value) {
  if (typeof value === "string") return value.replace(UNSAFE, escaped);
  if (Array.isArray(value)) return value.map(visible);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visible(item)]));
  }
  return value;
}
