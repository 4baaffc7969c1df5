// The VPN / proxy / hosting / mobile lookup's public surface. The route calls
// `detect(ip, asnLookup, holder.current())`; main.ts opens the holder once
// and calls `holder.reload()` after an update (or on a timer with ifChanged).
export { detect } from './detect.js';
export type { AsnHint, Confidence, DetectionIndex, FeedHit, VpnDetection } from './detect.js';
export { DetectionIndexHolder, FeedIndex, loadDetectionIndex } from './index/detection-index.js';
export type { DetectionIndexOptions, LoadedFeedInfo } from './index/detection-index.js';
export { loadAsnClasses, parseAsnClasses, defaultAsnClassesPath } from './asn-classes.js';
export type { AsnClass, AsnClassEntry, AsnClassTable } from './asn-classes.js';
export { classifyOrgName } from './org-rules.js';
export {
  DEFAULT_FEEDS,
  feedOverridesFromEnv,
  feedUrlVariable,
  resolveFeeds,
} from './feeds/default-feeds.js';
export type { FeedOverrides } from './feeds/default-feeds.js';
export { updateFeeds } from './feeds/feed-updater.js';
export type { FeedProgress, FeedResult, FeedSpec, UpdateOptions } from './feeds/feed-updater.js';
export { PrefixIndex } from './index/prefix-index.js';
