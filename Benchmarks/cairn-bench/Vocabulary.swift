// Word lists for generated documents. Real documents repeat field names and draw values from limited
// vocabularies, which is what makes them compress; these lists give the generator that texture.

/// The strings generated documents are made of.
enum Vocabulary {
    static let base62: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    static let firstNames = [
        "Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "Hedy", "Ivan", "John",
        "Katherine", "Leslie", "Margaret", "Niklaus", "Ole", "Radia", "Shafi", "Tim", "Whitfield", "Yukihiro",
        "Adele", "Bjarne", "Cynthia", "Dennis", "Evelyn", "Fernando", "Guido", "Hal", "Ingrid",
    ]

    static let lastNames = [
        "Lovelace", "Turing", "Liskov", "Shannon", "Knuth", "Dijkstra", "Allen", "Hopper", "Lamarr",
        "Sutherland", "McCarthy", "Johnson", "Lamport", "Hamilton", "Wirth", "Dahl", "Perlman", "Goldwasser",
        "Berners-Lee", "Diffie", "Matsumoto", "Goldberg", "Stroustrup", "Dwork", "Ritchie", "Berry",
        "Corbato", "van Rossum", "Abelson", "Nygaard",
    ]

    static let cities = [
        "Springfield", "Riverton", "Fairview", "Greenville", "Bristol", "Clinton", "Madison", "Georgetown",
        "Salem", "Franklin", "Ashland", "Burlington", "Manchester", "Oxford", "Dayton", "Lakewood",
    ]

    static let streets = [
        "Maple Street", "Oak Avenue", "Pine Road", "Cedar Lane", "Elm Street", "Main Street", "Lakeview Drive",
        "Hillcrest Road", "Sunset Boulevard", "Park Avenue", "River Road", "Church Street",
    ]

    static let locales = ["en-US", "en-GB", "fr-FR", "de-DE", "es-ES", "it-IT", "ja-JP", "pt-BR", "nl-NL", "sv-SE"]

    static let eventTypes = [
        "created", "status_changed", "comment_added", "assigned", "payment_received", "shipped", "viewed",
    ]

    static let statuses = ["draft", "pending", "approved", "rejected", "shipped", "delivered", "archived"]

    static let words = [
        "the", "of", "and", "a", "to", "in", "is", "you", "that", "it", "he", "was", "for", "on", "are", "as",
        "with", "his", "they", "at", "be", "this", "have", "from", "or", "one", "had", "by", "word", "but",
        "not", "what", "all", "were", "we", "when", "your", "can", "said", "there", "use", "an", "each",
        "which", "she", "do", "how", "their", "if", "will", "up", "other", "about", "out", "many", "then",
        "them", "these", "so", "some", "her", "would", "make", "like", "him", "into", "time", "has", "look",
        "two", "more", "write", "go", "see", "number", "no", "way", "could", "people", "my", "than", "first",
        "water", "been", "call", "who", "oil", "its", "now", "find", "long", "down", "day", "did", "get",
        "come", "made", "may", "part", "order", "shipment", "invoice", "customer", "delivery", "account",
        "balance", "payment", "review", "rating", "message", "update", "status", "pending", "approved",
        "archived", "priority", "project", "meeting", "schedule", "offline", "sync", "cache", "document",
        "collection", "snapshot", "listener", "query", "index", "mutation", "latency", "bandwidth",
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma", "omega",
        "red", "green", "blue", "yellow", "purple", "orange", "silver", "golden", "coffee", "garden",
        "mountain", "river", "forest", "harbor", "station", "library", "kitchen", "window", "bicycle",
    ]
}
