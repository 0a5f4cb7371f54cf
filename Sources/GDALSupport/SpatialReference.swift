import CGDAL

/// A GDAL spatial reference (OGRSpatialReferenceH) that frees itself.
public final class SpatialReference {
    /// The C handle, for GDAL's functions; owned by this object and valid while it lives.
    public let handle: OGRSpatialReferenceH

    private init(_ handle: OGRSpatialReferenceH) {
        self.handle = handle
    }

    /// A spatial reference given as anything OSRSetFromUserInput takes ("EPSG:3857", a PROJ
    /// string, WKT); nil when GDAL does not understand it.
    public convenience init?(_ definition: String) {
        GDAL.setUp()
        self.init(OSRNewSpatialReference(nil))
        guard OSRSetFromUserInput(handle, definition) == OGRERR_NONE else { return nil }
    }

    /// WGS 84 (EPSG:4326) with longitude first, as GeoJSON and WKB give coordinates, whatever
    /// the EPSG axis order says.
    public static func wgs84LongitudeLatitude() -> SpatialReference {
        GDAL.setUp()
        let reference = SpatialReference(OSRNewSpatialReference(nil))
        OSRImportFromEPSG(reference.handle, 4326)
        OSRSetAxisMappingStrategy(reference.handle, OAMS_TRADITIONAL_GIS_ORDER)
        return reference
    }

    deinit { OSRDestroySpatialReference(handle) }

    /// Its WKT, or nil when GDAL cannot write it.
    public var wkt: String? {
        var text: UnsafeMutablePointer<CChar>? = nil
        guard OSRExportToWkt(handle, &text) == OGRERR_NONE, let text else { return nil }
        defer { VSIFree(text) }
        return String(cString: text)
    }

    /// The WKT of `definition` (as `init(_:)` takes it), or nil.
    public static func wkt(_ definition: String) -> String? { SpatialReference(definition)?.wkt }
}
