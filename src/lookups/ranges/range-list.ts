// A range list as text chunks, made as they are read: the head at once, then
// the walk in steps of a few thousand intervals, a chunk handed on whenever
// some kilobytes are ready, and a turn of the event loop between steps (a
// list of a second's work never holds other answers up for long, and never
// sits whole in memory). The blocks are the fewest CIDRs covering each run
// of matching addresses (src/net/cidr-cover.ts, the export's cover too).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { formatIpv4 } from '../../net/ip.js';
import { v4Blocks, v6Blocks, wordsText, type Words } from '../../net/cidr-cover.js';
import { planFamily, type RangeSources } from './range-match.js';
import { FamilyWalk } from './range-walk.js';
import type { RangeFilter } from './range-filter.js';
import type { RangeWriter } from './range-formats.js';

/** intervals walked per step, and the text held before it is handed on */
const STEP = 20_000;
const FIRST_STEP = 1_000;
const CHUNK_CHARS = 32 * 1024;

/** What a list came to, once its last chunk is read. */
export interface ListSummary {
  blocks: number;
  intervals: number;
}

/**
 * The list's text in chunks. `summary` is filled in as the walk goes (read
 * it after the last chunk).
 */
export async function* rangeChunks(
  sources: RangeSources,
  filter: RangeFilter,
  writer: RangeWriter,
  summary: ListSummary = { blocks: 0, intervals: 0 },
): AsyncGenerator<string> {
  let out = writer.head();
  let started = false;
  for (const version of filter.families) {
    out += writer.familyStart(version);
    let count = 0;
    const addV4 = (at: number, length: number) => {
      out += writer.block(4, `${formatIpv4(at)}/${length}`, count++ === 0);
    };
    const addV6 = (at: Words, length: number) => {
      out += writer.block(6, `${wordsText(at)}/${length}`, count++ === 0);
    };
    const plan = planFamily(sources, filter, version);
    const walk = new FamilyWalk(version, plan.lanes, plan.test, {
      v4: (start, end) => v4Blocks(start, end, addV4),
      v6: (start, end) => v6Blocks(start, end, addV6),
    });
    // a short first step: the first blocks go out before the memos are warm
    while (!walk.step(started ? STEP : FIRST_STEP)) {
      // the first blocks go as soon as they are found, then in chunks
      if (out.length >= CHUNK_CHARS || (!started && out !== '')) {
        started = true;
        yield out;
        out = '';
      }
      await nextTurn();
    }
    out += writer.familyEnd(version, count);
    summary.blocks += count;
    summary.intervals += walk.intervals;
  }
  out += writer.tail(summary.blocks);
  yield out;
}
