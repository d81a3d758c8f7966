/// The first row to show of a list `count` rows long in a page of `page` rows, moved
/// from `offset` only as far as needed to keep row `index` on screen (the tree and the
/// table scroll alike).
///
/// ```swift
/// scrollOffset(keeping: 12, from: 0, page: 10, count: 40)  // 3
/// scrollOffset(keeping: 5, from: 3, page: 10, count: 40)   // 3
/// ```
func scrollOffset(keeping index: Int, from offset: Int, page: Int, count: Int) -> Int {
    let page = max(1, page)
    var offset = offset
    if index < offset { offset = index }
    if index >= offset + page { offset = index - page + 1 }
    return max(0, min(offset, max(0, count - page)))
}
