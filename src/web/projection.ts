// The map's projection, shared by the map drawing (world-map.ts, loaded only
// when the map is first drawn) and the page (the server-placed marker): plate
// carrée, x = (longitude + 180) × MAP_SCALE, y = (90 − latitude) × MAP_SCALE.
// The sum itself is web/render.js's, which places the page's markers.
import { project as projectAt } from '../../web/render.js';

/** map units per degree: 0.25° (~28 km at the equator) per unit, finer than the 1:110m data */
export const MAP_SCALE = 4;
/** latitudes drawn: Antarctica and the high Arctic are left out */
export const MAP_NORTH = 84;
export const MAP_SOUTH = -58;

export interface MapPoint {
  x: number;
  y: number;
}

/** The map position of a coordinate, at the map's scale. */
export function project(longitude: number, latitude: number): MapPoint {
  return projectAt(longitude, latitude, MAP_SCALE);
}

/** The SVG viewBox of the drawn latitudes, shared by the asset and the page. */
export const MAP_VIEW_BOX = `0 ${(90 - MAP_NORTH) * MAP_SCALE} ${360 * MAP_SCALE} ${(MAP_NORTH - MAP_SOUTH) * MAP_SCALE}`;
