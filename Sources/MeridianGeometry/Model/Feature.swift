import OrderedCollections

/// A GeoJSON Feature (RFC 7946 §3.2): a geometry (or none) with properties.
public struct Feature: Hashable, Sendable {
    /// The feature's `id`: a string or a number.
    public var id: FeatureID?
    /// The geometry; nil when the feature has `"geometry": null`.
    public var geometry: Geometry?
    /// The properties; nil when the feature has `"properties": null` (kept apart from `{}`).
    public var properties: JSONObject?
    /// The feature's own `bbox` member as read. Code that changes the geometry should clear it.
    public var bbox: BoundingBox?
    /// Members RFC 7946 does not define (§6.1), kept in order so nothing a producer wrote is lost.
    public var foreignMembers: JSONObject

    /// Creates a feature.
    /// - Parameters:
    ///   - id: The feature's `id`, or nil for none.
    ///   - geometry: The geometry, or nil for `"geometry": null`.
    ///   - properties: The properties; nil writes `"properties": null`, the default `[:]` writes `{}`.
    ///   - bbox: A `bbox` member to write, or nil for none.
    ///   - foreignMembers: Other members to keep, in order.
    public init(id: FeatureID? = nil, geometry: Geometry?, properties: JSONObject? = [:],
                bbox: BoundingBox? = nil, foreignMembers: JSONObject = [:]) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
        self.bbox = bbox
        self.foreignMembers = foreignMembers
    }
}

/// A feature identifier: RFC 7946 allows a string or a number.
public enum FeatureID: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case double(Double)
}

/// Everything a feature collection says besides its features: `name`, `crs`, `bbox` and any
/// foreign member, in document order. GeoJSON lets these come before or after `features`;
/// streaming readers report the two groups separately so writers can keep them where they were.
public struct CollectionMetadata: Hashable, Sendable {
    /// The members, in document order (without `type` and `features`).
    public var members: JSONObject

    /// Creates metadata from a collection's members, in the order they should be written.
    public init(members: JSONObject = [:]) { self.members = members }

    /// The collection's `name` member (ogr2ogr writes the layer name there).
    public var name: String? { members["name"]?.stringValue }
}
