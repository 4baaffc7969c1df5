// The offline world map of the web page: Natural Earth's country shapes
// (world-atlas, 1:110m) drawn once into one SVG asset, in the plate carrée
// projection — x = (longitude + 180) × SCALE, y = (90 − latitude) × SCALE — so
// the page places its marker with two lines of arithmetic (web/render.js) and
// no geography library in the browser. d3-geo does the spherical work (cutting
// Russia and Fiji at the antimeridian); the path data is written as relative
// integer moves, half the size of d3's absolute decimal form (docs/web-page.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { geoEquirectangular, geoPath, type GeoContext } from 'd3-geo';
import type { Topology, GeometryCollection } from 'topojson-specification';
import { feature } from 'topojson-client';
import { MAP_SCALE, MAP_VIEW_BOX } from './projection.js';

const ANTARCTICA = '010';

/** A d3-geo path context writing SVG path data as relative integer moves. */
class CompactPath implements GeoContext {
  private out = '';
  private x = 0;
  private y = 0;

  beginPath(): void {
    // each ring starts with moveTo
  }

  moveTo(x: number, y: number): void {
    this.x = Math.round(x);
    this.y = Math.round(y);
    this.out += `M${this.x} ${this.y}`;
  }

  lineTo(x: number, y: number): void {
    const nx = Math.round(x);
    const ny = Math.round(y);
    if (nx === this.x && ny === this.y) return;
    // "l3-2" needs no space before a minus sign
    this.out += `l${nx - this.x}${ny - this.y < 0 ? '' : ' '}${ny - this.y}`;
    this.x = nx;
    this.y = ny;
  }

  closePath(): void {
    this.out += 'z';
  }

  arc(): void {
    // points are not drawn: countries are polygons
  }

  take(): string {
    const d = this.out;
    this.out = '';
    return d;
  }
}

/**
 * The SVG document of the world's countries: one <g id="land"> (the page
 * draws it with <use>), each country a path whose id is its ISO 3166-1
 * numeric code ("n840" is the United States).
 */
export function renderWorldMap(topology: Topology): string {
  const countries = topology.objects['countries'] as GeometryCollection;
  const projection = geoEquirectangular()
    .scale((180 / Math.PI) * MAP_SCALE)
    .translate([180 * MAP_SCALE, 90 * MAP_SCALE]);
  const context = new CompactPath();
  const path = geoPath(projection, context);
  const paths: string[] = [];
  for (const country of feature(topology, countries).features) {
    const id = String(country.id ?? '');
    if (id === ANTARCTICA) continue;
    path(country);
    const d = context.take();
    // a few disputed areas (Kosovo, N. Cyprus, Somaliland) have no ISO code
    if (d !== '') paths.push(id === '' ? `<path d="${d}"/>` : `<path id="n${id}" d="${d}"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${MAP_VIEW_BOX}"><g id="land">${paths.join('')}</g></svg>`;
}

/** The installed world-atlas file (Natural Earth 1:110m countries, public domain). */
export function loadWorldTopology(): Topology {
  const file = createRequire(import.meta.url).resolve('world-atlas/countries-110m.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Topology;
}
