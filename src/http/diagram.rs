//! Rule-page diagrams (issue 29): parses a diagram file, `web/rules/diagrams/{name}.txt`, and
//! draws it as an inline SVG figure for the player rule pages (`/rules/{game}`). This module
//! owns the file format and the drawing; the rules page finds the `![caption](diagram:name)`
//! images in its Markdown and calls [`render`].
//!
//! The format: one `key: value` per line, `#` starts a comment, `board:` comes first.
//!
//! ```text
//! board: krux          # gomoku N (N = 5..15) | loa | krux | chess
//! rows:                # then one line per row, top row first, tokens separated by spaces
//! . . . . . . .
//! mark: c3 d4          # squares outlined in gold (as the game lights the piece in turn)
//! dot: c5 c6           # where a piece may go, or landed: a dot, or a ring round a piece
//! cross: e4            # crosses: not allowed, or captured
//! arrow: c1 c3         # repeatable: an arrow from the first square to the second
//! line: D4 H8          # gomoku, repeatable: a line through a row of stones
//! origin: F5           # gomoku: the window's bottom-left point on the 15 × 15 board (A1)
//! flip: yes            # chess: black at the bottom (rows are still written rank 8 first)
//! pocket-white: Q N P  # chess: pieces in hand, drawn as a row of glyphs with counts
//! pocket-black: p
//! coords: no           # hide the coordinates (files below, ranks on the left)
//! ```
//!
//! Tokens (`.` is an empty square everywhere): gomoku `X` black stone, `O` white stone; loa
//! `b`, `w`; krux `1`..`6` (odd white, even black) with an optional ring letter (`b` blue, `g`
//! green, `p` pink) and `o` for the hole, which is d4 and only d4; chess FEN letters. Squares
//! are named as on the game screen: `e4` on the square boards, `H8` on gomoku, whose columns
//! are A–O with `I` (`GOMOKU_COLUMNS`), as the game names them.
//!
//! Nothing of the source is copied into the markup: the drawing is numbers and labels this
//! module owns, the caption is escaped, and `id` is reduced to `[A-Za-z0-9_-]`. There are no
//! `style` attributes (the CSP forbids them): colours are SVG presentation attributes, so the
//! SVG looks the same on its own; `web/css/rules.css` only sizes and places the figure.

use std::fmt::Write as _;

use super::catalogue::escape;

/// Gomoku column letters, left to right on the real board (`I` is not skipped: the game's names).
const GOMOKU_COLUMNS: &[u8; 15] = b"ABCDEFGHIJKLMNO";
/// The real gomoku board that `origin` names a point of.
const GOMOKU_FULL: usize = 15;
/// The real board's star points, as (column, row from the bottom), 0-based: D4 M4 H8 D12 M12.
const GOMOKU_STARS: [(usize, usize); 5] = [(3, 3), (11, 3), (7, 7), (3, 11), (11, 11)];

/// One square (or the gap between two gomoku lines), in SVG units.
const CELL: f64 = 40.0;
/// Space around the drawing, for the coordinates, and for each chess pocket's row.
const PAD: f64 = 6.0;
const COORD_SPACE: f64 = 22.0;
const POCKET_SPACE: f64 = 38.0;
/// CSS pixels per SVG unit for the figure's natural size (an 8 × 8 board ≈ 280px wide).
const PX_PER_UNIT: f64 = 0.8;

const LIGHT_SQUARE: &str = "#ecd9b0";
const DARK_SQUARE: &str = "#b98a52";
const FRAME: &str = "#6b4522";
const WOOD: &str = "#dcb35c";
const GRID: &str = "#4a3414";
const COORD_INK: &str = "#4a3b2c";
/// Dots, arrows, crosses and the five are drawn over a white casing, marks inside a dark edge,
/// so that each stands out on any square or piece.
const MARK: &str = "#ffd23c";
const MARK_EDGE: &str = "#2b2118";
const HINT: &str = "#7b2cbf";
const CROSS: &str = "#c62828";
const FIVE: &str = "#d1242f";
const CASING: &str = "#ffffff";
const TEXT_FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
const GLYPH_FONT: &str = "'DejaVu Sans', 'Noto Sans Symbols 2', 'Segoe UI Symbol', 'Apple Symbols', sans-serif";

/// Why a diagram file cannot be drawn; each message names the file's line (from 1) where it can.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiagramError {
    #[error("no `board:` line")]
    MissingBoard,
    #[error("no `rows:` line")]
    MissingRows,
    #[error("line {0}: `board:` must come before `{1}:`")]
    BoardNotFirst(usize, String),
    #[error("line {0}: unknown board `{1}` (expected `gomoku N` with N from 5 to 15, `loa`, `krux` or `chess`)")]
    UnknownBoard(usize, String),
    #[error("line {0}: a {1} board has {2} rows after `rows:`, found {3}")]
    WrongRowCount(usize, &'static str, usize, usize),
    #[error("line {0}: a {1} row has {2} tokens, found {3}")]
    WrongTokenCount(usize, &'static str, usize, usize),
    #[error("line {0}: unknown token `{2}` on a {1} board")]
    UnknownToken(usize, &'static str, String),
    #[error("line {0}: found `{1}` on {2}, but the hole `o` is on d4 and nowhere else")]
    Hole(usize, String, String),
    #[error("line {0}: `{1}` is not a square of this board")]
    BadSquare(usize, String),
    #[error("line {0}: unknown key `{1}`")]
    UnknownKey(usize, String),
    #[error("line {0}: `{1}:` does not apply to a {2} board")]
    NotForBoard(usize, String, &'static str),
    #[error("line {0}: `{1}:` given twice")]
    Duplicate(usize, String),
    #[error("line {0}: bad `{1}:` value `{2}`: expected {3}")]
    BadValue(usize, String, String, &'static str),
    #[error("line {0}: expected `key: value`, or a row right after `rows:`")]
    Syntax(usize),
}

/// Parses a diagram file (the format in the module doc) and draws it as inline SVG markup.
pub fn render(source: &str, caption: &str, id: &str) -> Result<String, DiagramError> {
    let diagram = parse(source)?;
    let id = clean_id(id);
    Ok(format!(
        "<figure class=\"diagram\">{}<figcaption id=\"{id}-cap\">{}</figcaption></figure>",
        draw(&diagram, &id),
        escape(caption)
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Board {
    Gomoku(usize),
    #[default]
    Loa,
    Krux,
    Chess,
}

impl Board {
    fn size(self) -> usize {
        match self {
            Board::Gomoku(size) => size,
            Board::Loa | Board::Chess => 8,
            Board::Krux => 7,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Board::Gomoku(_) => "gomoku",
            Board::Loa => "loa",
            Board::Krux => "krux",
            Board::Chess => "chess",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Hole,
    /// A gomoku stone or a Lines of Action piece.
    Disc {
        black: bool,
    },
    /// A Krux piece: its number and its ring's colour.
    Krux(u8, Option<&'static str>),
    /// A FEN letter.
    Chess(char),
}

/// A point of the drawn grid as the file writes it: (column from the left, row from the top).
type Point = (usize, usize);

#[derive(Debug, Default)]
struct Diagram {
    board: Board,
    /// Gomoku: the window's bottom-left point on the real board, (column, row), 0-based.
    origin: Point,
    coords: bool,
    flip: bool,
    cells: Vec<Vec<Cell>>,
    marks: Vec<Point>,
    dots: Vec<Point>,
    crosses: Vec<Point>,
    arrows: Vec<(Point, Point)>,
    lines: Vec<(Point, Point)>,
    /// Chess pockets: white's (upper-case letters), then black's.
    pockets: [Option<Vec<char>>; 2],
}

/// The keys: whether each may be given only once, and the one board it applies to, if any.
const KEYS: [(&str, bool, Option<&str>); 12] = [
    ("board", true, None),
    ("rows", true, None),
    ("coords", true, None),
    ("origin", true, Some("gomoku")),
    ("flip", true, Some("chess")),
    ("pocket-white", true, Some("chess")),
    ("pocket-black", true, Some("chess")),
    ("mark", false, None),
    ("dot", false, None),
    ("cross", false, None),
    ("arrow", false, None),
    ("line", false, Some("gomoku")),
];

fn parse(source: &str) -> Result<Diagram, DiagramError> {
    use DiagramError::*;
    let (mut board, mut rows_line, mut in_rows) = (None, None, false);
    let (mut rows, mut seen, mut entries) = (Vec::new(), Vec::new(), Vec::new());
    for (index, raw) in source.lines().enumerate() {
        let line = index + 1;
        let text = raw.split('#').next().unwrap_or_default().trim();
        if text.is_empty() {
            continue;
        }
        let Some((key, value)) = text.split_once(':') else {
            if !in_rows {
                return Err(Syntax(line));
            }
            rows.push((line, text));
            continue;
        };
        in_rows = false;
        let (key, value) = (key.trim(), value.trim());
        let Some(&(_, once, only)) = KEYS.iter().find(|(k, ..)| *k == key) else {
            return Err(UnknownKey(line, key.into()));
        };
        if once && seen.contains(&key) {
            return Err(Duplicate(line, key.into()));
        }
        seen.push(key);
        if key == "board" {
            board = Some(parse_board(line, value)?);
            continue;
        }
        let Some(board) = board else {
            return Err(BoardNotFirst(line, key.into()));
        };
        if only.is_some_and(|only| only != board.name()) {
            return Err(NotForBoard(line, key.into(), board.name()));
        }
        if key != "rows" {
            entries.push((line, key, value));
        } else if value.is_empty() {
            (rows_line, in_rows) = (Some(line), true);
        } else {
            return Err(BadValue(
                line,
                key.into(),
                value.into(),
                "nothing: the rows follow, one a line",
            ));
        }
    }
    let board = board.ok_or(MissingBoard)?;
    let cells = parse_rows(board, rows_line.ok_or(MissingRows)?, &rows)?;
    let mut diagram = Diagram {
        board,
        cells,
        coords: true,
        ..Diagram::default()
    };
    // The options first: `origin` changes how every gomoku point is read.
    for &(line, key, value) in &entries {
        let yes_no = || match value {
            "yes" => Ok(true),
            "no" => Ok(false),
            _ => Err(BadValue(line, key.into(), value.into(), "`yes` or `no`")),
        };
        match key {
            "origin" => diagram.origin = parse_origin(line, value, board.size())?,
            "coords" => diagram.coords = yes_no()?,
            "flip" => diagram.flip = yes_no()?,
            _ => {}
        }
    }
    let origin = diagram.origin;
    for &(line, key, value) in &entries {
        let squares = || -> Result<Vec<Point>, DiagramError> {
            let names = value.split_whitespace();
            names.map(|name| square(board, origin, line, name)).collect()
        };
        let pair = || match squares()?[..] {
            [from, to] if from != to => Ok((from, to)),
            _ => Err(BadValue(line, key.into(), value.into(), "two different squares")),
        };
        match key {
            "mark" => diagram.marks.extend(squares()?),
            "dot" => diagram.dots.extend(squares()?),
            "cross" => diagram.crosses.extend(squares()?),
            "arrow" => diagram.arrows.push(pair()?),
            "line" => diagram.lines.push(pair()?),
            "pocket-white" => diagram.pockets[0] = Some(parse_pocket(line, key, value, "QRBNP")?),
            "pocket-black" => diagram.pockets[1] = Some(parse_pocket(line, key, value, "qrbnp")?),
            _ => {}
        }
    }
    Ok(diagram)
}

fn parse_board(line: usize, value: &str) -> Result<Board, DiagramError> {
    let board = match value.split_whitespace().collect::<Vec<_>>()[..] {
        ["loa"] => Some(Board::Loa),
        ["krux"] => Some(Board::Krux),
        ["chess"] => Some(Board::Chess),
        ["gomoku", size] => rank(size, GOMOKU_FULL).filter(|&size| size >= 5).map(Board::Gomoku),
        _ => None,
    };
    board.ok_or_else(|| DiagramError::UnknownBoard(line, value.into()))
}

/// A row number `1..=max`, written without a sign or leading zeros.
fn rank(text: &str, max: usize) -> Option<usize> {
    let plain = !text.starts_with(['0', '+']);
    text.parse().ok().filter(|n| plain && (1..=max).contains(n))
}

/// A gomoku point name (`H8`) on the real board, as (column, row from the bottom), 0-based.
fn gomoku_point(name: &str) -> Option<Point> {
    let column = GOMOKU_COLUMNS
        .iter()
        .position(|&c| name.as_bytes().first() == Some(&c))?;
    Some((column, rank(name.get(1..)?, GOMOKU_FULL)? - 1))
}

fn parse_origin(line: usize, value: &str, size: usize) -> Result<Point, DiagramError> {
    let fits = |&(column, row): &Point| column + size <= GOMOKU_FULL && row + size <= GOMOKU_FULL;
    gomoku_point(value).filter(fits).ok_or_else(|| {
        let expected = "a point of the 15 × 15 board from which the window fits";
        DiagramError::BadValue(line, "origin".into(), value.into(), expected)
    })
}

/// A square or point name, as the game screen writes it, to its place in the file's grid.
fn square(board: Board, origin: Point, line: usize, name: &str) -> Result<Point, DiagramError> {
    let size = board.size();
    let from_bottom = match board {
        Board::Gomoku(_) => gomoku_point(name)
            .and_then(|(column, row)| Some((column.checked_sub(origin.0)?, row.checked_sub(origin.1)?))),
        _ => {
            let file = name.bytes().next().filter(u8::is_ascii_lowercase);
            let rank = name.get(1..).and_then(|text| rank(text, size));
            file.zip(rank).map(|(file, rank)| (usize::from(file - b'a'), rank - 1))
        }
    };
    match from_bottom {
        Some((column, row)) if column < size && row < size => Ok((column, size - 1 - row)),
        _ => Err(DiagramError::BadSquare(line, name.into())),
    }
}

fn parse_rows(board: Board, rows_line: usize, rows: &[(usize, &str)]) -> Result<Vec<Vec<Cell>>, DiagramError> {
    let (size, name) = (board.size(), board.name());
    if rows.len() != size {
        return Err(DiagramError::WrongRowCount(rows_line, name, size, rows.len()));
    }
    let mut cells = Vec::with_capacity(size);
    for (y, &(line, text)) in rows.iter().enumerate() {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        if tokens.len() != size {
            return Err(DiagramError::WrongTokenCount(line, name, size, tokens.len()));
        }
        let mut row = Vec::with_capacity(size);
        for (x, token) in tokens.into_iter().enumerate() {
            let cell = parse_token(board, token).ok_or_else(|| DiagramError::UnknownToken(line, name, token.into()))?;
            if board == Board::Krux && ((x, y) == (3, 3)) != (cell == Cell::Hole) {
                let square = format!("{}{}", char::from(b'a' + x as u8), size - y);
                return Err(DiagramError::Hole(line, token.into(), square));
            }
            row.push(cell);
        }
        cells.push(row);
    }
    Ok(cells)
}

fn parse_token(board: Board, token: &str) -> Option<Cell> {
    let cell = match (board, token) {
        (_, ".") => Cell::Empty,
        (Board::Gomoku(_), "X") | (Board::Loa, "b") => Cell::Disc { black: true },
        (Board::Gomoku(_), "O") | (Board::Loa, "w") => Cell::Disc { black: false },
        (Board::Krux, "o") => Cell::Hole,
        (Board::Krux, _) => {
            let number = token.chars().next()?.to_digit(10).filter(|n| (1..=6).contains(n))?;
            let ring = match token.get(1..)? {
                "" => None,
                "b" => Some("#1f6feb"),
                "g" => Some("#1a7f37"),
                "p" => Some("#d63384"),
                _ => return None,
            };
            Cell::Krux(number as u8, ring)
        }
        (Board::Chess, _) if token.len() == 1 && "KQRBNPkqrbnp".contains(token) => Cell::Chess(token.chars().next()?),
        _ => return None,
    };
    Some(cell)
}

/// A pocket: single letters from `letters` (the colour's pieces but the king).
fn parse_pocket(line: usize, key: &str, value: &str, letters: &str) -> Result<Vec<char>, DiagramError> {
    let letter = |token: &str| {
        Some(token)
            .filter(|t| t.len() == 1 && letters.contains(*t))?
            .chars()
            .next()
    };
    let expected = "piece letters of that colour, no king";
    let bad = || DiagramError::BadValue(line, key.into(), value.into(), expected);
    value
        .split_whitespace()
        .map(|token| letter(token).ok_or_else(bad))
        .collect()
}

/// The SVG: the board, then what lies on it, then coordinates and pockets.
fn draw(diagram: &Diagram, id: &str) -> String {
    let size = diagram.board.size() as f64;
    let coord_space = if diagram.coords { COORD_SPACE } else { 0.0 };
    // The pocket of the side at the top (black, unless flipped) goes above the board.
    let (top_pocket, bottom_pocket) = if diagram.flip { (0, 1) } else { (1, 0) };
    let pocket_space = |side: usize| diagram.pockets[side].as_ref().map_or(0.0, |_| POCKET_SPACE);
    let left = PAD + coord_space;
    let top = PAD + pocket_space(top_pocket);
    let width = left + size * CELL + PAD;
    let height = top + size * CELL + coord_space + pocket_space(bottom_pocket) + PAD;
    let mut svg = Svg {
        out: String::new(),
        left,
        top,
        size: diagram.board.size(),
        flip: diagram.flip,
        gomoku: matches!(diagram.board, Board::Gomoku(_)),
    };
    let _ = write!(
        svg.out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" \
         role=\"img\" aria-labelledby=\"{id}-cap\">",
        num(width),
        num(height),
        num(width * PX_PER_UNIT),
        num(height * PX_PER_UNIT)
    );
    if !diagram.arrows.is_empty() {
        svg.arrow_markers(id);
    }
    match diagram.board {
        Board::Gomoku(_) => svg.gomoku_grid(diagram.origin),
        _ => svg.squares(diagram.board == Board::Krux),
    }
    for (y, row) in diagram.cells.iter().enumerate() {
        for (x, &cell) in row.iter().enumerate() {
            svg.cell((x, y), cell);
        }
    }
    for &point in &diagram.marks {
        svg.mark(point);
    }
    for &(from, to) in &diagram.lines {
        svg.cased_line(svg.centre(from), svg.centre(to), FIVE, 0.12 * CELL, None);
    }
    for &point in &diagram.crosses {
        svg.cross(point);
    }
    for &(x, y) in &diagram.dots {
        svg.dot((x, y), diagram.cells[y][x] != Cell::Empty);
    }
    for &(from, to) in &diagram.arrows {
        svg.arrow(from, to, diagram.cells[from.1][from.0] != Cell::Empty, id);
    }
    if diagram.coords {
        svg.coordinates(diagram);
    }
    if let Some(pocket) = &diagram.pockets[top_pocket] {
        svg.pocket(pocket, PAD + POCKET_SPACE / 2.0);
    }
    if let Some(pocket) = &diagram.pockets[bottom_pocket] {
        svg.pocket(pocket, height - PAD - POCKET_SPACE / 2.0);
    }
    svg.out.push_str("</svg>");
    svg.out
}

/// SVG markup being written, and where the board lies in it.
struct Svg {
    out: String,
    left: f64,
    top: f64,
    size: usize,
    flip: bool,
    gomoku: bool,
}

impl Svg {
    /// The centre of a point of the file's grid, turned half round when flipped.
    fn centre(&self, (x, y): Point) -> (f64, f64) {
        let (x, y) = if self.flip {
            (self.size - 1 - x, self.size - 1 - y)
        } else {
            (x, y)
        };
        (self.left + (x as f64 + 0.5) * CELL, self.top + (y as f64 + 0.5) * CELL)
    }

    fn rect(&mut self, x: f64, y: f64, side: f64, attributes: &str) {
        let (x, y, side) = (num(x), num(y), num(side));
        let _ = write!(
            self.out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{side}\" height=\"{side}\" {attributes}/>"
        );
    }

    fn circle(&mut self, cx: f64, cy: f64, r: f64, attributes: &str) {
        let (cx, cy, r) = (num(cx), num(cy), num(r));
        let _ = write!(self.out, "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" {attributes}/>");
    }

    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), attributes: &str) {
        let (x1, y1, x2, y2) = (num(x1), num(y1), num(x2), num(y2));
        let _ = write!(
            self.out,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" {attributes}/>"
        );
    }

    /// Text this module wrote (labels, digits, glyphs), centred on `x`.
    fn text(&mut self, x: f64, y: f64, text: &str, attributes: &str) {
        let (x, y) = (num(x), num(y));
        let _ = write!(
            self.out,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" {attributes}>{text}</text>"
        );
    }

    /// Loa, chess (light and dark squares) or krux (light squares with gaps) in a frame.
    fn squares(&mut self, krux: bool) {
        let side = self.size as f64 * CELL;
        let frame = if krux { 3.0 } else { 2.0 };
        self.rect(
            self.left - frame,
            self.top - frame,
            side + 2.0 * frame,
            &format!("fill=\"{FRAME}\" rx=\"3\""),
        );
        for y in 0..self.size {
            for x in 0..self.size {
                let (cx, cy) = self.centre((x, y));
                // a1 (bottom left, unflipped) is dark; flipping keeps the colouring.
                let dark = !krux && (x + self.size - 1 - y).is_multiple_of(2);
                let fill = if dark { DARK_SQUARE } else { LIGHT_SQUARE };
                let gap = if krux { 1.0 } else { 0.0 };
                let (x0, y0) = (cx - CELL / 2.0 + gap, cy - CELL / 2.0 + gap);
                self.rect(x0, y0, CELL - 2.0 * gap, &format!("fill=\"{fill}\""));
            }
        }
    }

    /// A wooden window with its lines: a line reaches the wood's edge where the real board
    /// goes on, and stops at the last point where the window is at the real board's edge.
    fn gomoku_grid(&mut self, origin: Point) {
        let n = self.size;
        let side = n as f64 * CELL;
        self.rect(self.left, self.top, side, &format!("fill=\"{WOOD}\" rx=\"3\""));
        let (first, last) = (CELL / 2.0, side - CELL / 2.0);
        let left_end = if origin.0 == 0 { first } else { 0.0 };
        let right_end = if origin.0 + n == GOMOKU_FULL { last } else { side };
        let bottom_end = if origin.1 == 0 { last } else { side };
        let top_end = if origin.1 + n == GOMOKU_FULL { first } else { 0.0 };
        let stroke = format!("stroke=\"{GRID}\" stroke-width=\"1.2\"");
        for i in 0..n {
            let at = (i as f64 + 0.5) * CELL;
            let (l, t) = (self.left, self.top);
            self.line((l + left_end, t + at), (l + right_end, t + at), &stroke);
            self.line((l + at, t + top_end), (l + at, t + bottom_end), &stroke);
        }
        for (column, row) in GOMOKU_STARS {
            let (Some(x), Some(row)) = (column.checked_sub(origin.0), row.checked_sub(origin.1)) else {
                continue;
            };
            if x < n && row < n {
                let (cx, cy) = self.centre((x, n - 1 - row));
                self.circle(cx, cy, 3.5, &format!("fill=\"{GRID}\""));
            }
        }
    }

    fn cell(&mut self, point: Point, cell: Cell) {
        let (cx, cy) = self.centre(point);
        match cell {
            Cell::Empty => {}
            Cell::Hole => self.circle(
                cx,
                cy,
                0.4 * CELL,
                "fill=\"#0b0703\" stroke=\"#3b2814\" stroke-width=\"3\"",
            ),
            Cell::Disc { black } => {
                let r = if self.gomoku { 0.45 } else { 0.38 } * CELL;
                let paint = if black {
                    "fill=\"#161616\" stroke=\"#000000\" stroke-width=\"1\""
                } else {
                    "fill=\"#fbfbf7\" stroke=\"#3a3a3a\" stroke-width=\"1.5\""
                };
                self.circle(cx, cy, r, paint);
            }
            Cell::Krux(number, ring) => {
                let (fill, ink) = if number % 2 == 1 {
                    ("#fdfbf5", "#222222")
                } else {
                    ("#1e1e1e", "#ffffff")
                };
                let (stroke, width) = match ring {
                    Some(colour) => (colour, 0.13 * CELL),
                    None => ("#777777", 2.0),
                };
                let attributes = format!("fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{}\"", num(width));
                self.circle(cx, cy, 0.4 * CELL - width / 2.0, &attributes);
                let font = format!("font-family=\"{TEXT_FONT}\" font-size=\"16\" font-weight=\"700\" fill=\"{ink}\"");
                self.text(cx, cy + 5.7, &number.to_string(), &font);
            }
            Cell::Chess(letter) => self.glyph(cx, cy, letter, 0.8 * CELL),
        }
    }

    /// A chess piece: a filled glyph, white ones filled white with a dark outline (painted
    /// under the fill, so the inner lines of the king and queen stay thin).
    fn glyph(&mut self, cx: f64, cy: f64, letter: char, font_size: f64) {
        let glyph = match letter.to_ascii_lowercase() {
            'k' => '♚',
            'q' => '♛',
            'r' => '♜',
            'b' => '♝',
            'n' => '♞',
            _ => '♟',
        };
        let paint = if letter.is_ascii_uppercase() {
            "fill=\"#fffdf6\" stroke=\"#1b1b1b\" stroke-width=\"2\" paint-order=\"stroke\""
        } else {
            "fill=\"#141414\""
        };
        let attributes = format!("font-family=\"{GLYPH_FONT}\" font-size=\"{}\" {paint}", num(font_size));
        // U+FE0E asks for the text glyph, never an emoji.
        self.text(cx, cy + 0.33 * font_size, &format!("{glyph}\u{FE0E}"), &attributes);
    }

    /// A highlighted square: gold, as the game screen lights the piece in turn, edged dark.
    fn mark(&mut self, point: Point) {
        let (cx, cy) = self.centre(point);
        let (x, y, side) = (cx - CELL / 2.0 + 3.0, cy - CELL / 2.0 + 3.0, CELL - 6.0);
        for (width, colour) in [(7.0, MARK_EDGE), (4.0, MARK)] {
            let paint = format!("fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\"");
            self.rect(x, y, side, &paint);
        }
    }

    fn cross(&mut self, point: Point) {
        let (cx, cy) = self.centre(point);
        let d = 0.25 * CELL;
        for (width, colour) in [(9.0, CASING), (5.0, CROSS)] {
            let paint = format!("stroke=\"{colour}\" stroke-width=\"{width}\" stroke-linecap=\"round\"");
            self.line((cx - d, cy - d), (cx + d, cy + d), &paint);
            self.line((cx - d, cy + d), (cx + d, cy - d), &paint);
        }
    }

    /// A line over a white casing, ending in an arrowhead when `arrow_id` is given.
    fn cased_line(&mut self, from: (f64, f64), to: (f64, f64), colour: &str, width: f64, arrow_id: Option<&str>) {
        let head = |marker: &str| match arrow_id {
            Some(id) => format!(" marker-end=\"url(#{id}-{marker})\""),
            None => String::new(),
        };
        let casing = format!("stroke=\"{CASING}\" stroke-width=\"{}\"", num(width + 3.0));
        let coloured = format!("stroke=\"{colour}\" stroke-width=\"{}\"", num(width));
        for (paint, marker) in [(casing, "halo"), (coloured, "head")] {
            self.line(from, to, &format!("{paint} stroke-linecap=\"round\"{}", head(marker)));
        }
    }

    /// The arrowheads, coloured and white (the casing), with ids unique to the figure.
    fn arrow_markers(&mut self, id: &str) {
        let head = "d=\"M3,3 L17,10 L3,17 Z\" stroke-linejoin=\"round\"";
        let marker = "viewBox=\"0 0 20 20\" refX=\"4\" refY=\"10\" markerWidth=\"20\" markerHeight=\"20\" \
                      markerUnits=\"userSpaceOnUse\" orient=\"auto\"";
        let _ = write!(
            self.out,
            "<defs><marker id=\"{id}-halo\" {marker}><path {head} fill=\"{CASING}\" stroke=\"{CASING}\" \
             stroke-width=\"3\"/></marker><marker id=\"{id}-head\" {marker}><path {head} fill=\"{HINT}\"/>\
             </marker></defs>"
        );
    }

    /// As the game screen shows a legal destination: a dot on an empty square, a ring
    /// around a piece.
    fn dot(&mut self, point: Point, occupied: bool) {
        let (cx, cy) = self.centre(point);
        if occupied {
            for (width, colour) in [(6.0, CASING), (3.0, HINT)] {
                let paint = format!("fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\"");
                self.circle(cx, cy, 0.46 * CELL, &paint);
            }
        } else {
            let paint = format!("fill=\"{HINT}\" stroke=\"{CASING}\" stroke-width=\"2\"");
            self.circle(cx, cy, 0.14 * CELL, &paint);
        }
    }

    /// An arrow from near the first centre to near the second, leaving the pieces on both
    /// squares readable.
    fn arrow(&mut self, from: Point, to: Point, occupied: bool, id: &str) {
        let (start, end) = (self.centre(from), self.centre(to));
        let (dx, dy) = (end.0 - start.0, end.1 - start.1);
        let length = dx.hypot(dy);
        let (ux, uy) = (dx / length, dy / length);
        // It starts at the edge of the piece it leaves (or near an empty square's centre) and
        // stops short of the target's centre, less so on a short arrow; the head reaches 13
        // units past the line's end (marker refX 4, tip 17).
        let ahead = if occupied {
            0.35 * CELL
        } else {
            (0.2 * CELL).min(0.15 * length)
        };
        let short = (0.25 * CELL).min(0.15 * length);
        let start = (start.0 + ux * ahead, start.1 + uy * ahead);
        let back = short + 13.0;
        let end = (end.0 - ux * back, end.1 - uy * back);
        self.cased_line(start, end, HINT, 0.15 * CELL, Some(id));
    }

    /// Files below the board, ranks on its left, as the game screen names them.
    fn coordinates(&mut self, diagram: &Diagram) {
        let n = self.size;
        let font = format!("font-family=\"{TEXT_FONT}\" font-size=\"13\" fill=\"{COORD_INK}\"");
        let bottom = self.top + n as f64 * CELL;
        for i in 0..n {
            // Point i of the file's grid: column i from the left, row i from the top.
            let (file, rank) = match diagram.board {
                Board::Gomoku(_) => (
                    char::from(GOMOKU_COLUMNS[diagram.origin.0 + i]),
                    diagram.origin.1 + n - i,
                ),
                _ => (char::from(b'a' + i as u8), n - i),
            };
            let (cx, cy) = self.centre((i, i));
            self.text(cx, bottom + 16.0, &file.to_string(), &font);
            self.text(self.left - COORD_SPACE / 2.0 - 1.0, cy + 4.5, &rank.to_string(), &font);
        }
    }

    /// A row of glyphs, each kind once with its count, in the order Q R B N P.
    fn pocket(&mut self, pocket: &[char], cy: f64) {
        let font = format!("font-family=\"{TEXT_FONT}\" font-size=\"13\" font-weight=\"700\" fill=\"{COORD_INK}\"");
        let mut x = self.left + 0.4 * CELL;
        for kind in "QRBNP".chars() {
            let count = pocket.iter().filter(|c| c.to_ascii_uppercase() == kind).count();
            let Some(&letter) = pocket.iter().find(|c| c.to_ascii_uppercase() == kind) else {
                continue;
            };
            self.glyph(x, cy, letter, 0.7 * CELL);
            self.text(x + 24.0, cy + 5.0, &format!("×{count}"), &font);
            x += 1.5 * CELL;
        }
    }
}

/// Rounds to hundredths so the markup stays short.
fn num(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// `id` as a safe prefix for element ids: only `[A-Za-z0-9_-]`, never empty.
fn clean_id(id: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let clean: String = id.chars().map(|c| if safe(c) { c } else { '-' }).collect();
    if clean.is_empty() { "diagram".into() } else { clean }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KRUX: &str = "# the push\nboard: krux\nrows:\n. . . . . . .\n. . 2 . . . .\n. . 1b . . . .\n. . . o . . .\n. . 3g . 4p . .\n. . . . . . .\n5 . . . . . 6\nmark: c5\ndot: c6\ncross: e3\narrow: c3 c5\n";
    const LOA: &str = "board: loa\nrows:\n. b b b b b b .\nw . . . . . . w\nw . . . . . . w\nw . . . . . . w\nw . . . . . . w\nw . . . . . . w\nw . . . . . . w\n. b b b b b b .\narrow: b1 b3\ndot: b3\n";
    const CHESS: &str = "board: chess\nrows:\nr n b q k b n r\np p p p . p p p\n. . . . . . . .\n. . . . p . . .\n. . . . P . . .\n. . . . . N . .\nP P P P . P P P\nR N B Q K B . R\npocket-white: Q N P P\npocket-black: p\narrow: g1 f3\n";

    fn gomoku(size: usize, extra: &str) -> String {
        let row = vec!["."; size].join(" ");
        let rows = vec![row.as_str(); size].join("\n");
        format!("board: gomoku {size}\nrows:\n{rows}\n{extra}")
    }

    fn error(source: &str) -> DiagramError {
        match parse(source) {
            Ok(diagram) => panic!("parsed: {diagram:?}"),
            Err(error) => error,
        }
    }

    #[test]
    fn each_board_kind_parses_and_renders() {
        let sources = [
            KRUX.to_string(),
            LOA.to_string(),
            CHESS.to_string(),
            CHESS.replace("board: chess", "board: chess\nflip: yes\ncoords: no"),
            gomoku(9, "origin: D4\nline: E5 I9\n").replacen(". . . . .", ". X O X O", 2),
        ];
        for source in &sources {
            let html = render(source, "A caption.", "fig").unwrap();
            assert!(html.starts_with("<figure class=\"diagram\"><svg "), "{html}");
            assert!(html.contains("role=\"img\" aria-labelledby=\"fig-cap\""), "{html}");
            assert!(html.ends_with("<figcaption id=\"fig-cap\">A caption.</figcaption></figure>"));
            assert!(!html.contains("style="), "{html}");
        }
        let krux = parse(KRUX).unwrap();
        assert_eq!(krux.board, Board::Krux);
        assert_eq!(krux.cells[3][3], Cell::Hole);
        assert_eq!(krux.cells[2][2], Cell::Krux(1, Some("#1f6feb")));
        assert_eq!(krux.arrows, [((2, 4), (2, 2))]);
        let html = render(KRUX, "", "k").unwrap();
        assert!(html.contains("stroke=\"#1a7f37\"") && html.contains("stroke=\"#d63384\""));
        assert!(html.contains(">6</text>"));
        let loa = parse(LOA).unwrap();
        assert_eq!(loa.cells[0][1], Cell::Disc { black: true });
        assert_eq!(loa.cells[1][0], Cell::Disc { black: false });
        let chess = parse(CHESS).unwrap();
        assert_eq!(chess.cells[7][4], Cell::Chess('K'));
        assert_eq!(chess.pockets, [Some(vec!['Q', 'N', 'P', 'P']), Some(vec!['p'])]);
        let html = render(CHESS, "", "c").unwrap();
        assert!(html.contains("DejaVu Sans") && html.contains("♚\u{FE0E}"), "{html}");
        assert!(html.contains(">×2</text>"), "{html}");
        let stones = parse(&sources[4]).unwrap();
        assert_eq!(stones.cells[0][1], Cell::Disc { black: true });
        assert_eq!(stones.cells[1][2], Cell::Disc { black: false });
        assert_eq!(stones.lines, [((1, 7), (5, 3))]);
    }

    #[test]
    fn coordinates_are_drawn_unless_turned_off() {
        let html = render(LOA, "", "l").unwrap();
        assert!(html.contains(">a</text>") && html.contains(">h</text>") && html.contains(">8</text>"));
        let html = render(&LOA.replace("dot: b3", "coords: no"), "", "l").unwrap();
        assert!(!html.contains(">a</text>") && !html.contains(">8</text>"), "{html}");
    }

    /// Where the first `<text>` whose content is `label` is drawn: (x, y).
    fn label_at(html: &str, label: &str) -> (f64, f64) {
        let end = html.find(&format!(">{label}</text>")).unwrap();
        let start = html[..end].rfind("<text x=\"").unwrap() + "<text x=\"".len();
        let mut parts = html[start..].split('"');
        let x = parts.next().unwrap().parse().unwrap();
        (x, parts.nth(1).unwrap().parse().unwrap())
    }

    #[test]
    fn flip_puts_black_at_the_bottom() {
        let plain = render(CHESS, "", "c").unwrap();
        assert!(label_at(&plain, "a").0 < label_at(&plain, "h").0);
        let flipped = render(&CHESS.replace("rows:", "flip: yes\nrows:"), "", "c").unwrap();
        assert!(label_at(&flipped, "a").0 > label_at(&flipped, "h").0);
        assert!(label_at(&plain, "8").1 < label_at(&plain, "1").1);
        assert!(label_at(&flipped, "8").1 > label_at(&flipped, "1").1);
        // White's pocket (two pawns) is drawn below the board unflipped, above it flipped.
        assert!(label_at(&plain, "×2").1 > label_at(&plain, "a").1);
        assert!(label_at(&flipped, "×2").1 < label_at(&flipped, "a").1);
    }

    #[test]
    fn a_dot_on_a_piece_is_a_ring() {
        let html = render(KRUX, "", "k").unwrap();
        let dot = format!("fill=\"{HINT}\" stroke=\"{CASING}\"");
        let ring = format!("fill=\"none\" stroke=\"{HINT}\"");
        assert!(html.contains(&ring) && !html.contains(&dot), "{html}");
        let html = render(&KRUX.replace("dot: c6", "dot: a7"), "", "k").unwrap();
        assert!(!html.contains(&ring) && html.contains(&dot), "{html}");
    }

    #[test]
    fn gomoku_columns_are_the_games_and_honour_origin() {
        let html = render(&gomoku(9, ""), "", "g").unwrap();
        for label in ["A", "H", "I", "1", "9"] {
            assert!(html.contains(&format!(">{label}</text>")), "{label}");
        }
        assert!(!html.contains(">J</text>") && !html.contains(">10</text>"), "{html}");
        let html = render(&gomoku(9, "origin: F5\n"), "", "g").unwrap();
        for label in ["F", "H", "I", "N", "5", "13"] {
            assert!(html.contains(&format!(">{label}</text>")), "{label}");
        }
        assert!(!html.contains(">E</text>") && !html.contains(">4</text>"), "{html}");
        // J is the fifth column from F (F G H I J), 9 the fifth row from 5, counted from the top.
        let diagram = parse(&gomoku(9, "origin: F5\nmark: J9 F5 N13\n")).unwrap();
        assert_eq!(diagram.marks, [(4, 4), (0, 8), (8, 0)]);
        for bad in ["O9", "E5", "F4", "F14", "f5", "P5"] {
            assert_eq!(
                error(&gomoku(9, &format!("origin: F5\nmark: {bad}\n"))),
                DiagramError::BadSquare(13, bad.into())
            );
        }
        // The window must fit on the 15 × 15 board: the last 9-window starts at G7.
        assert!(parse(&gomoku(9, "origin: G7\n")).is_ok());
        for bad in ["H7", "G8", "I1", "A0", "A"] {
            let source = gomoku(9, &format!("origin: {bad}\n"));
            assert!(matches!(error(&source), DiagramError::BadValue(12, ..)), "{bad}");
        }
    }

    #[test]
    fn the_caption_is_escaped_and_the_id_cleaned() {
        let html = render(KRUX, "<script>alert(\"x\")</script> & 'so'", "a\"b<c> d").unwrap();
        assert!(
            html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;so&#39;"),
            "{html}"
        );
        assert!(!html.contains("<script") && !html.contains("a\"b"), "{html}");
        assert!(html.contains("id=\"a-b-c--d-cap\"") && html.contains("url(#a-b-c--d-head)"));
        assert!(render(KRUX, "", "").unwrap().contains("id=\"diagram-cap\""));
    }

    #[test]
    fn arrow_marker_ids_are_unique_per_figure() {
        let first = render(KRUX, "", "krux-push").unwrap();
        let second = render(KRUX, "", "krux-pull").unwrap();
        for (html, id) in [(&first, "krux-push"), (&second, "krux-pull")] {
            for marker in ["head", "halo"] {
                assert_eq!(html.matches(&format!("<marker id=\"{id}-{marker}\"")).count(), 1);
                assert!(html.contains(&format!("marker-end=\"url(#{id}-{marker})\"")));
            }
        }
        assert!(!first.contains("krux-pull") && !second.contains("krux-push"));
        // No arrows, no markers.
        assert!(!render(&gomoku(5, ""), "", "g").unwrap().contains("<marker"));
    }

    #[test]
    fn every_error_names_its_line() {
        use DiagramError::*;
        let two = "two different squares";
        let pocket = "piece letters of that colour, no king";
        let cases: Vec<(String, DiagramError)> = vec![
            ("# nothing\n".into(), MissingBoard),
            ("board: loa\nmark: a1\n".into(), MissingRows),
            ("rows:\nboard: loa\n".into(), BoardNotFirst(1, "rows".into())),
            ("board: go\n".into(), UnknownBoard(1, "go".into())),
            (
                gomoku(5, "").replace("gomoku 5", "gomoku 4"),
                UnknownBoard(1, "gomoku 4".into()),
            ),
            (LOA.replacen(". b b b b b b .\n", "", 1), WrongRowCount(2, "loa", 8, 7)),
            (
                LOA.replacen(". b b b b b b .", ". b b b b b b", 1),
                WrongTokenCount(3, "loa", 8, 7),
            ),
            (LOA.replacen("w . .", "W . .", 1), UnknownToken(4, "loa", "W".into())),
            (CHESS.replacen('k', "x", 1), UnknownToken(3, "chess", "x".into())),
            (KRUX.replacen("1b", "7", 1), UnknownToken(6, "krux", "7".into())),
            (KRUX.replacen("1b", "1x", 1), UnknownToken(6, "krux", "1x".into())),
            (
                gomoku(5, "").replacen('.', "o", 1),
                UnknownToken(3, "gomoku", "o".into()),
            ),
            (KRUX.replacen(". . . o", ". . . .", 1), Hole(7, ".".into(), "d4".into())),
            (KRUX.replacen("1b", "o", 1), Hole(6, "o".into(), "c5".into())),
            (KRUX.replace("mark: c5", "mark: c8"), BadSquare(11, "c8".into())),
            (KRUX.replace("mark: c5", "mark: C5"), BadSquare(11, "C5".into())),
            (KRUX.replace("dot: c6", "dot: h1"), BadSquare(12, "h1".into())),
            (KRUX.replace("cross: e3", "cross: e03"), BadSquare(13, "e03".into())),
            (KRUX.replace("arrow: c3 c5", "arrow: c3 c"), BadSquare(14, "c".into())),
            (KRUX.replace("mark:", "marks:"), UnknownKey(11, "marks".into())),
            (
                KRUX.replace("mark: c5", "line: c5 c6"),
                NotForBoard(11, "line".into(), "krux"),
            ),
            (
                LOA.replace("dot: b3", "pocket-white: Q"),
                NotForBoard(12, "pocket-white".into(), "loa"),
            ),
            (
                CHESS.replace("arrow: g1 f3", "origin: A1"),
                NotForBoard(13, "origin".into(), "chess"),
            ),
            (
                LOA.replace("dot: b3", "flip: yes"),
                NotForBoard(12, "flip".into(), "loa"),
            ),
            (KRUX.replace("mark: c5", "board: krux"), Duplicate(11, "board".into())),
            (
                KRUX.replace("mark: c5", "coords: no\ncoords: no"),
                Duplicate(12, "coords".into()),
            ),
            (
                KRUX.replace("mark: c5", "coords: maybe"),
                BadValue(11, "coords".into(), "maybe".into(), "`yes` or `no`"),
            ),
            (
                KRUX.replace("arrow: c3 c5", "arrow: c3"),
                BadValue(14, "arrow".into(), "c3".into(), two),
            ),
            (
                KRUX.replace("arrow: c3 c5", "arrow: c3 c3"),
                BadValue(14, "arrow".into(), "c3 c3".into(), two),
            ),
            (
                CHESS.replace("pocket-black: p", "pocket-black: k"),
                BadValue(12, "pocket-black".into(), "k".into(), pocket),
            ),
            (
                CHESS.replace("Q N P P", "Q q"),
                BadValue(11, "pocket-white".into(), "Q q".into(), pocket),
            ),
            (
                KRUX.replace("rows:", "rows: 7"),
                BadValue(3, "rows".into(), "7".into(), "nothing: the rows follow, one a line"),
            ),
            (KRUX.replace("dot: c6", ". . ."), Syntax(12)),
        ];
        for (source, expected) in cases {
            let found = error(&source);
            assert_eq!(found, expected, "{source}");
            let message = found.to_string();
            assert!(
                message.starts_with("line ") || matches!(found, MissingBoard | MissingRows),
                "{message}"
            );
        }
        assert_eq!(
            WrongTokenCount(3, "loa", 8, 7).to_string(),
            "line 3: a loa row has 8 tokens, found 7"
        );
        assert_eq!(
            Hole(6, "o".into(), "c5".into()).to_string(),
            "line 6: found `o` on c5, but the hole `o` is on d4 and nowhere else"
        );
    }
}
