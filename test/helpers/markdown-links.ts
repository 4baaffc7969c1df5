// Relative links of a Markdown file and the anchors its headings make, as
// GitHub renders them: what the documentation's link check reads.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface MarkdownLink {
  readonly line: number;
  readonly target: string;
}

/** The file's text with fenced code blocks and inline code blanked out (their
 * brackets are not links), line breaks kept so that line numbers hold. */
function withoutCode(text: string): string {
  const noFences = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) =>
    block.replace(/[^\n]/g, ' '),
  );
  return noFences.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
}

/** Every inline link or image `[text](target)` and reference definition
 * `[label]: target` whose target is not a URL with a scheme. */
export function relativeLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  withoutCode(text)
    .split('\n')
    .forEach((content, index) => {
      const inline = [...content.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
      const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(content);
      const targets = inline.map((match) => match[1] ?? '');
      if (definition?.[1] !== undefined) targets.push(definition[1]);
      for (const target of targets) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line: index + 1, target });
      }
    });
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to
 * hyphens; a repeated heading gets `-1`, `-2`… */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const slug = heading[1]
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** What is wrong with each relative link of `file`: a missing file, or an
 * anchor no heading of the target makes. Empty when every link resolves. */
export function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const problems: string[] = [];
  for (const { line, target } of relativeLinks(text)) {
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    if (!existsSync(path)) {
      problems.push(`${file}:${line}: ${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!path.endsWith('.md')) {
      problems.push(`${file}:${line}: ${target}: an anchor into a file that is not Markdown`);
    } else if (!headingAnchors(readFileSync(path, 'utf8')).has(anchor)) {
      problems.push(`${file}:${line}: ${target}: no heading makes #${anchor}`);
    }
  }
  return problems;
}
