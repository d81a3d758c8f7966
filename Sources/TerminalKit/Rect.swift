/// A rectangle of cells: the area a view draws into.
///
/// All values are non-negative; initialisers and operations clamp instead of trapping.
///
/// ```swift
/// let screen = Rect(x: 0, y: 0, width: 80, height: 24)
/// let (body, status) = screen.splitVertically(at: 23)
/// let (tree, detail) = body.splitHorizontally(at: 40)
/// ```
public struct Rect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// Creates a rectangle; negative values are clamped to zero.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = max(0, x)
        self.y = max(0, y)
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The first column to the right of the rectangle.
    public var maxX: Int { x + width }
    /// The first line below the rectangle.
    public var maxY: Int { y + height }
    /// True when the rectangle has no cells.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// The rectangle shrunk by `n` cells on every side (clamped at an empty rectangle).
    ///
    /// ```swift
    /// Rect(x: 0, y: 0, width: 10, height: 5).inset(by: 1)  // x 1, y 1, 8 × 3
    /// ```
    public func inset(by n: Int) -> Rect {
        let n = max(0, n)
        let w = max(0, width - 2 * n)
        let h = max(0, height - 2 * n)
        return Rect(x: x + min(n, width / 2), y: y + min(n, height / 2), width: w, height: h)
    }

    /// Splits into a left part `column` cells wide (clamped to the width) and the rest.
    public func splitHorizontally(at column: Int) -> (left: Rect, right: Rect) {
        let c = min(max(0, column), width)
        return (
            Rect(x: x, y: y, width: c, height: height),
            Rect(x: x + c, y: y, width: width - c, height: height)
        )
    }

    /// Splits into a top part `row` lines high (clamped to the height) and the rest.
    public func splitVertically(at row: Int) -> (top: Rect, bottom: Rect) {
        let r = min(max(0, row), height)
        return (
            Rect(x: x, y: y, width: width, height: r),
            Rect(x: x, y: y + r, width: width, height: height - r)
        )
    }

    /// The `i`-th line of the rectangle, one line high; empty when `i` is out of range.
    public func row(_ i: Int) -> Rect {
        guard i >= 0, i < height else { return Rect(x: x, y: y, width: 0, height: 0) }
        return Rect(x: x, y: y + i, width: width, height: 1)
    }

    /// The part of this rectangle inside `other` (empty if they do not overlap).
    public func intersection(_ other: Rect) -> Rect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return Rect(x: x0, y: y0, width: 0, height: 0) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
