// The tiling request's vocabulary (tile formats, schemes, shards, the raster and vector
// choices) lives in MeridianTilingRequest, which links no C library and no Foundation so that
// `meridian` can make a request; this module's users see it as before.
@_exported import MeridianTilingRequest
