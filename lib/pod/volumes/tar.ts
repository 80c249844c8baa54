// A tar archive writer (pure), for the files podrun copies into an engine that cannot see this
// host's disk (engine-files.ts): regular files, directories and symbolic links, in POSIX ustar
// form, with a PAX header carrying the name or the link's target when either is longer than
// ustar's 100 bytes (a ConfigMap key may be 253). Go's archive/tar, which reads it in the Service
// proxy's image, reads both. Times are 0: the same files always make the same archive, so a hash
// of it tells whether anything changed. Format: https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html

export interface TarEntry {
  /** Relative, `/`-separated; a directory's without a trailing slash. */
  name: string;
  type: "file" | "directory" | "symlink";
  /** Permission and special bits (0o2777). */
  mode: number;
  uid: number;
  gid: number;
  /** A file's bytes. */
  content?: Buffer;
  /** A symbolic link's target. */
  linkname?: string;
}

const BLOCK = 512;
const TYPE_FLAGS = { file: "0", directory: "5", symlink: "2" } as const;

/** The archive of `entries`, in their order, ended by the two zero blocks. */
export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const name = entry.type === "directory" ? `${entry.name}/` : entry.name;
    const linkname = entry.linkname ?? "";
    const pax: Record<string, string> = {};
    if (Buffer.byteLength(name) > 100) pax.path = name;
    if (Buffer.byteLength(linkname) > 100) pax.linkpath = linkname;
    if (Object.keys(pax).length > 0) {
      const records = Buffer.from(
        Object.entries(pax)
          .map(([key, value]) => paxRecord(key, value))
          .join(""),
      );
      parts.push(header({ name: "PaxHeader", type: "x", size: records.length, mode: 0o644, uid: 0, gid: 0 }));
      parts.push(padded(records));
    }
    const content = entry.type === "file" ? (entry.content ?? Buffer.alloc(0)) : Buffer.alloc(0);
    parts.push(
      header({
        name: truncate(name),
        type: TYPE_FLAGS[entry.type],
        size: content.length,
        mode: entry.mode,
        uid: entry.uid,
        gid: entry.gid,
        linkname: truncate(linkname),
      }),
    );
    if (content.length > 0) parts.push(padded(content));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** `<length> <key>=<value>\n`, whose length counts itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function header(fields: {
  name: string;
  type: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  linkname?: string;
}): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(fields.name, 0, 100, "utf8");
  octal(block, 100, 8, fields.mode & 0o7777);
  octal(block, 108, 8, fields.uid);
  octal(block, 116, 8, fields.gid);
  octal(block, 124, 12, fields.size);
  octal(block, 136, 12, 0); // mtime
  block.write(fields.type, 156, 1, "ascii");
  block.write(fields.linkname ?? "", 157, 100, "utf8");
  block.write("ustar\u000000", 257, 8, "ascii");
  // The checksum: the header's bytes summed with its own field as eight spaces.
  block.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, 8, "ascii");
  return block;
}

function octal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, "0")}\u0000`, offset, length, "ascii");
}

function padded(data: Buffer): Buffer {
  const rest = data.length % BLOCK;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(BLOCK - rest)]);
}

/** A name cut to ustar's 100 bytes (the PAX header carries the whole), at a character boundary. */
function truncate(text: string): string {
  let cut = text;
  while (Buffer.byteLength(cut) > 100) cut = cut.slice(0, -1);
  return cut;
}
