/// The first `limit` elements of a stream in an order, kept in a bounded max-heap: the root is the last of
/// those kept, so an element that does not come before it is rejected with one comparison. Offering n elements
/// costs O(n log limit) comparisons and O(limit) memory, instead of sorting all n.
///
/// ```swift
/// var smallest = TopSelection<Int>(limit: 2, precedes: <)
/// for n in [5, 1, 4, 2, 3] { smallest.offer(n) }
/// smallest.sorted()   // [1, 2]
/// ```
struct TopSelection<Element> {
    let limit: Int
    /// True when the first argument comes strictly before the second.
    let precedes: (Element, Element) -> Bool
    /// A max-heap by `precedes`: every parent comes after (or ties with) its children.
    private(set) var elements: [Element] = []

    init(limit: Int, precedes: @escaping (Element, Element) -> Bool) {
        self.limit = limit
        self.precedes = precedes
        elements.reserveCapacity(min(limit, 1024))
    }

    /// Keeps `element` if it is among the first `limit` seen so far, dropping the one it displaces.
    mutating func offer(_ element: Element) {
        guard limit > 0 else { return }
        if elements.count < limit {
            elements.append(element)
            siftUp(elements.count - 1)
        } else if precedes(element, elements[0]) {
            elements[0] = element
            siftDown(0)
        }
    }

    /// The kept elements, first first.
    func sorted() -> [Element] { elements.sorted(by: precedes) }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(elements[parent], elements[child]) else { return }
            elements.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var largest = parent
            let left = 2 * parent + 1
            if left < elements.count && precedes(elements[largest], elements[left]) { largest = left }
            if left + 1 < elements.count && precedes(elements[largest], elements[left + 1]) { largest = left + 1 }
            guard largest != parent else { return }
            elements.swapAt(parent, largest)
            parent = largest
        }
    }
}
