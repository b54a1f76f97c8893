// Reversible encoding of Kubernetes names (and any string) into one KV-key / NATS-subject token.
// Kubernetes names contain dots, which both NATS subjects and our keys use as separators, so every
// character outside [A-Za-z0-9-] becomes `_XX` (the hex of each UTF-8 byte). `_` itself is escaped,
// which makes decoding unambiguous. Encoded tokens are never empty: "" encodes to "_".

const SAFE = /^[A-Za-z0-9-]$/;

export function encodeToken(value: string): string {
  if (value === "") return "_";
  let out = "";
  for (const ch of value) {
    if (SAFE.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, "utf8")) out += "_" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

export function decodeToken(token: string): string {
  if (token === "_") return "";
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    const ch = token[i]!;
    if (ch === "_") {
      const hex = token.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) throw new Error(`invalid encoded token: ${JSON.stringify(token)}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (SAFE.test(ch)) {
      bytes.push(ch.charCodeAt(0));
    } else {
      throw new Error(`invalid encoded token: ${JSON.stringify(token)}`);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
