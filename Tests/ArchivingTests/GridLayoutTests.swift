import Testing

@testable import Archiving

@Suite struct GridLayoutTests {
    typealias Rect = GridLayout.Rect

    @Test func oneToFourTilesFillTheCanvasAsASquareGrid() {
        #expect(GridLayout.cells(count: 0, width: 640, height: 480).isEmpty)
        #expect(GridLayout.cells(count: 1, width: 640, height: 480) == [Rect(x: 0, y: 0, width: 640, height: 480)])
        #expect(
            GridLayout.cells(count: 2, width: 640, height: 480) == [
                Rect(x: 0, y: 0, width: 320, height: 480), Rect(x: 320, y: 0, width: 320, height: 480),
            ])
        #expect(
            GridLayout.cells(count: 4, width: 1280, height: 720) == [
                Rect(x: 0, y: 0, width: 640, height: 360), Rect(x: 640, y: 0, width: 640, height: 360),
                Rect(x: 0, y: 360, width: 640, height: 360), Rect(x: 640, y: 360, width: 640, height: 360),
            ])
    }

    @Test func anIncompleteLastRowIsCentred() {
        let cells = GridLayout.cells(count: 3, width: 640, height: 480)
        #expect(
            cells == [
                Rect(x: 0, y: 0, width: 320, height: 240), Rect(x: 320, y: 0, width: 320, height: 240),
                Rect(x: 160, y: 240, width: 320, height: 240),
            ])
        let nine = GridLayout.cells(count: 9, width: 640, height: 480)
        #expect(
            nine.count == 9 && nine.allSatisfy { $0.width == 212 && $0.height == 160 && $0.x % 2 == 0 && $0.y % 2 == 0 }
        )
    }

    @Test func aPictureKeepsItsShapeCentredInItsCell() {
        let cell = Rect(x: 320, y: 0, width: 320, height: 480)
        #expect(
            GridLayout.fit(width: 1280, height: 720, in: cell) == Rect(x: 320, y: 150, width: 320, height: 180),
            "letterboxed")
        #expect(
            GridLayout.fit(width: 480, height: 640, in: Rect(x: 0, y: 0, width: 640, height: 480))
                == Rect(x: 140, y: 0, width: 360, height: 480), "pillarboxed")
        #expect(GridLayout.fit(width: 0, height: 0, in: cell) == cell)
    }
}
