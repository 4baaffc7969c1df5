// The map's projection, shared by the map drawing (world-map.ts, loaded only
// when the map is first drawn) and the page (the server-placed marker): plate
// carrée, x = (longitude + 180) × MAP_SCALE, y = (90 − latitude) × MAP_SCALE.
// web/page.js does the same sum for the markers it places.

/** map units per degree: 0.25° (~28 km at the equator) per unit, finer than the 1:110m data */
export const MAP_SCALE = 4;
/** latitudes drawn: Antarctica and the high Arctic are left out */
export const MAP_NORTH = 84;
export const MAP_SOUTH = -58;

export interface MapPoint {
  x: number;
  y: number;
}

/** The map position of a coordinate: the page script does the same sum (web/page.js). */
export function project(longitude: number, latitude: number): MapPoint {
  return {
    x: Math.round((longitude + 180) * MAP_SCALE * 10) / 10,
    y: Math.round((90 - latitude) * MAP_SCALE * 10) / 10,
  };
}

/** The SVG viewBox of the drawn latitudes, shared by the asset and the page. */
export const MAP_VIEW_BOX = `0 ${(90 - MAP_NORTH) * MAP_SCALE} ${360 * MAP_SCALE} ${(MAP_NORTH - MAP_SOUTH) * MAP_SCALE}`;
