import CairnModel

// The public API of Cairn has types named like CairnModel's (`Timestamp`, `Query`, `Filter`, `FieldPath`);
// inside this module the names mean the model types, which the wire format encodes.
package typealias Timestamp = CairnModel.Timestamp
package typealias Query = CairnModel.Query
package typealias Filter = CairnModel.Filter
package typealias FieldPath = CairnModel.FieldPath
