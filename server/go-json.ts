// JSON as Go's encoding/json writes it (server/respond.ts and the CLI).

/** Go encoding/json: HTML-safe escaping and U+2028/2029 escaped; a trailing newline from json.Encoder. */
export function goJson (value: unknown): string {
  return JSON.stringify(value ?? null)
    .replace(/[<>&\u2028\u2029]/g, c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '\n'
}
