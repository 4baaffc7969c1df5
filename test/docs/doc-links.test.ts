// Every relative link of the README, BENCHMARKS.md and docs/*.md resolves: the
// file exists and, for `#anchor`, a heading of that file makes the anchor. The
// checker itself is held to broken links on files written here, so the check
// can fail.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { brokenLinks, headingAnchors, relativeLinks } from '../helpers/markdown-links.js';

const docsDir = join(PROJECT_ROOT, 'docs');
const documents = [
  join(PROJECT_ROOT, 'README.md'),
  join(PROJECT_ROOT, 'BENCHMARKS.md'),
  ...readdirSync(docsDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docsDir, name)),
];

describe('documentation links', () => {
  for (const file of documents) {
    it(`every relative link of ${file.slice(PROJECT_ROOT.length + 1)} resolves`, () => {
      assert.deepEqual(brokenLinks(file), []);
    });
  }

  it('the README links to docs/ and is short enough to read in five minutes', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    assert.ok(relativeLinks(readme).some((link) => link.target.startsWith('docs/')));
    assert.ok(readme.split('\n').length < 300);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-links-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a missing file, a missing anchor and a missing same-file anchor', () => {
    writeFileSync(join(dir, 'other.md'), '# Other page\n\n## Command line: `ipintel`\n');
    writeFileSync(
      join(dir, 'page.md'),
      [
        '# Page',
        'Good: [a](other.md#command-line-ipintel), [b](#page), [c](other.md), [d](https://x.test/y).',
        'Bad: [e](gone.md), [f](other.md#nowhere), [g](#nowhere).',
        '```',
        '[inside a fence](ignored.md)',
        '```',
        'Inline code `[x](ignored.md)` is not a link either.',
        '[ref]: gone-too.md',
      ].join('\n'),
    );
    assert.deepEqual(
      brokenLinks(join(dir, 'page.md')).map((problem) => problem.slice(dir.length + 1)),
      [
        'page.md:3: gone.md: no such file',
        'page.md:3: other.md#nowhere: no heading makes #nowhere',
        'page.md:3: #nowhere: no heading makes #nowhere',
        'page.md:8: gone-too.md: no such file',
      ],
    );
  });

  it('makes the anchors GitHub makes', () => {
    const anchors = headingAnchors(
      [
        '# ipintel',
        '## Bulk: POST /batch and `ipintel enrich` (issue 12)',
        '## Notes',
        '## Notes',
        '```',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(
      [...anchors],
      ['ipintel', 'bulk-post-batch-and-ipintel-enrich-issue-12', 'notes', 'notes-1'],
    );
  });
});
