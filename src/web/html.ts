// HTML text from values: every interpolated value goes through `escape`
// (HTML Living Standard §13.1.2.6: &, <, >, " and ' cover text and quoted
// attribute values), so a hostile query string or Host header stays text.
import type { Child } from '../../web/render.js';

export type { Attribution } from '../../web/render.js';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escape(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** The shared renderer's nodes (web/render.js) as HTML text; the page's script makes them DOM nodes. */
export function toHtml(nodes: readonly Child[]): string {
  return nodes
    .map((node) => {
      if (typeof node === 'string') return escape(node);
      const attrs = Object.entries(node.attrs)
        .map(([name, value]) => ` ${name}="${escape(value)}"`)
        .join('');
      return `<${node.tag}${attrs}>${toHtml(node.children)}</${node.tag}>`;
    })
    .join('');
}

export { withKey } from '../../web/render.js';
