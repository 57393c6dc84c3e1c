/** A multipart body with one file part named `filename` (the raw bytes of the name, no escaping). */
export function multipartWith(filename: string, content: string): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = '----agentvfs' + Math.random().toString(16).slice(2)
  const text = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`
  return { body: new TextEncoder().encode(text), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Names every host must refuse in a multipart upload, with the status they must get. */
export const REFUSED_PART_NAMES = ['..\\..\\state\\x.json', 'a\\b.md', '\\\\server\\share.md', '../state/x.json', '/abs.md']
