/**
 * The one route that takes an NDJSON body, streamed: an account import (docs/limits-and-security.md,
 * "Importing an account"). The request gate lets its content type through and bounds its declared
 * length by MUNINN_IMPORT_MAX_BYTES instead of the JSON body limit; the import reads the stream itself.
 */
export const IMPORT_ROUTE = /^\/api\/v1\/admin\/accounts\/[^/?]+\/import$/;

export const NDJSON_TYPE = /^application\/(x-)?ndjson\s*(;|$)/i;
