// The lookups the server renders into the page itself, so the first view
// needs no script: the caller's GeoIP and VPN verdict, and for `/?q=` the
// in-memory lookups of the query (GeoIP and VPN of an address, CIDR math of
// a range). The panels are made by the page script's own renderer
// (web/render.js, imported as it is), written here as HTML text.
import type { z } from 'zod';
import type { cidrRecordSchema, geoIpRecordSchema } from '../api/schemas.js';
import type { vpnRecordSchema } from '../api/lookup-schemas.js';
import {
  attributionLine,
  cidrContent,
  curlLine,
  errorBody,
  geoContent,
  panel as panelNode,
  vpnContent,
  type Child,
} from '../../web/render.js';
import { toHtml, withKey, type Attribution } from './html.js';

export type GeoIpRecord = z.infer<typeof geoIpRecordSchema>;
export type VpnRecord = z.infer<typeof vpnRecordSchema>;
export type CidrRecord = z.infer<typeof cidrRecordSchema>;

export interface PanelHtml {
  lookup: string;
  title: string;
  /** the result, or the API's error message */
  body: readonly Child[];
  path: string;
  attributions?: readonly Attribution[];
}

/** One lookup's panel: title, result (or the API's error message), attribution, curl (with the page's key). */
export function panel(p: PanelHtml, origin: string, key: string | null = null): string {
  const content = [
    ...p.body,
    ...attributionLine(p.attributions ?? []),
    curlLine(origin, withKey(p.path, key)),
  ];
  return toHtml([panelNode(p, content)]);
}

/** A bogon is named by its special-purpose range, e.g. "loopback (RFC 1122)". */
export function geoBody(geo: GeoIpRecord, bogonPurpose: string | null): Child[] {
  return geoContent(geo, bogonPurpose ?? 'special-purpose');
}

export { cidrContent, errorBody, vpnContent };
