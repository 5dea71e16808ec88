/// Where a composed archive puts its videos: a grid as square as the count allows, filled row by
/// row, the last row centred; each picture as large as its cell allows with its shape kept, centred
/// in it. Coordinates are even, as I420's half-size colour planes need.
enum GridLayout {
    struct Rect: Equatable, CustomStringConvertible {
        var x: Int
        var y: Int
        var width: Int
        var height: Int

        var description: String { "\(width)x\(height)+\(x)+\(y)" }
    }

    /// The cells of `count` tiles on a `width` × `height` canvas.
    static func cells(count: Int, width: Int, height: Int) -> [Rect] {
        guard count > 0 else { return [] }
        var columns = 1
        while columns * columns < count { columns += 1 }
        let rows = (count + columns - 1) / columns
        let cellWidth = width / columns & ~1
        let cellHeight = height / rows & ~1
        let top = (height - rows * cellHeight) / 2 & ~1
        return (0..<count).map { index in
            let row = index / columns
            let column = index % columns
            let inRow = row == rows - 1 ? count - row * columns : columns
            let left = (width - inRow * cellWidth) / 2 & ~1
            return Rect(x: left + column * cellWidth, y: top + row * cellHeight, width: cellWidth, height: cellHeight)
        }
    }

    /// Where a picture of `width` × `height` goes in `cell`.
    static func fit(width: Int, height: Int, in cell: Rect) -> Rect {
        guard width > 0, height > 0 else { return cell }
        var fittedWidth = cell.width
        var fittedHeight = cell.width * height / width
        if fittedHeight > cell.height {
            fittedHeight = cell.height
            fittedWidth = cell.height * width / height
        }
        fittedWidth = max(2, fittedWidth & ~1)
        fittedHeight = max(2, fittedHeight & ~1)
        return Rect(
            x: cell.x + ((cell.width - fittedWidth) / 2 & ~1), y: cell.y + ((cell.height - fittedHeight) / 2 & ~1),
            width: fittedWidth,
            height: fittedHeight)
    }
}
