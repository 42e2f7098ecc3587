import CairnModel
import Foundation

/// A geographical point: latitude in [-90, 90] and longitude in [-180, 180] degrees.
///
/// ```swift
/// try await db.document("places/eiffel").setData(["at": GeoPoint(latitude: 48.8584, longitude: 2.2945)])
/// ```
///
/// Firebase raises an exception when a point out of range is made; Cairn lets it be made and reports
/// `invalidArgument` (with the reason from ``validationProblem``) when it is written or queried.
public final class GeoPoint: Sendable, Hashable, CustomStringConvertible, Codable {
    public let latitude: Double
    public let longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Why Firestore would reject this point; `nil` when it is in range.
    public var validationProblem: String? {
        if latitude.isNaN || longitude.isNaN {
            return "Latitude and longitude must be numbers, but were \(latitude), \(longitude)."
        }
        return ValueRanges.problem(with: model)
    }

    public static func == (a: GeoPoint, b: GeoPoint) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(latitude)
        hasher.combine(longitude)
    }

    public var description: String { "<FIRGeoPoint: (\(latitude), \(longitude))>" }

    private enum CodingKeys: String, CodingKey {
        case latitude, longitude
    }

    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
    }

    var model: CairnModel.GeoPoint { CairnModel.GeoPoint(latitude: latitude, longitude: longitude) }

    convenience init(_ model: CairnModel.GeoPoint) {
        self.init(latitude: model.latitude, longitude: model.longitude)
    }
}
