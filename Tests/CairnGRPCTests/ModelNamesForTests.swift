import CairnCore
import CairnModel

// The tests import both Cairn (whose public API has a `Timestamp`, `Query`, `Filter` and `FieldPath`) and
// CairnModel; the serializer and RPC tests mean the model types.
typealias Timestamp = CairnModel.Timestamp
typealias Query = CairnModel.Query
typealias Filter = CairnModel.Filter
typealias FieldPath = CairnModel.FieldPath
