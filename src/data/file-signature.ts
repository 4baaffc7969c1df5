// The one change stamp: what tells a file (overrides, API keys, the update
// tables, the feeds) changed without reading it: its modification time, size
// and inode — the inode so that a file replaced by a rename (an atomic swap)
// with the same time and size still counts as changed.
export function fileSignature(s: { mtimeMs: number; size: number; ino: number }): string {
  return `${s.mtimeMs}:${s.size}:${s.ino}`;
}
