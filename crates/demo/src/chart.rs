//! Draws a bar chart into a PNG with nothing but the `image` crate.
//!
//! Labels use a 3x5 pixel digit font scaled up, so the picture carries the numbers it plots.

use image::{ImageFormat, Rgba, RgbaImage};

const WIDTH: u32 = 480;
const HEIGHT: u32 = 300;
const MARGIN_LEFT: u32 = 40;
const MARGIN_RIGHT: u32 = 20;
const MARGIN_TOP: u32 = 30;
const MARGIN_BOTTOM: u32 = 30;
const MAX_BARS: usize = 64;

const BACKGROUND: Rgba<u8> = Rgba([250, 250, 252, 255]);
const GRID: Rgba<u8> = Rgba([226, 229, 236, 255]);
const AXIS: Rgba<u8> = Rgba([90, 96, 110, 255]);
const LABEL: Rgba<u8> = Rgba([40, 44, 52, 255]);
const PALETTE: [Rgba<u8>; 5] = [
    Rgba([66, 133, 244, 255]),
    Rgba([52, 168, 83, 255]),
    Rgba([251, 188, 5, 255]),
    Rgba([234, 67, 53, 255]),
    Rgba([142, 36, 170, 255]),
];

/// Renders `values` as a bar chart and returns the PNG bytes.
///
/// Errors (as a message for the caller) when there are no values, too many, or a value is negative
/// or not finite.
pub(crate) fn bar_chart_png(values: &[f64]) -> Result<Vec<u8>, String> {
    if values.is_empty() || values.len() > MAX_BARS {
        return Err(format!("`values` must hold 1 to {MAX_BARS} numbers, got {}", values.len()));
    }
    if let Some(bad) = values.iter().find(|v| !v.is_finite() || **v < 0.0) {
        return Err(format!("`values` must be finite numbers >= 0, got {bad}"));
    }
    let max = values.iter().cloned().fold(0.0_f64, f64::max).max(f64::MIN_POSITIVE);
    let mut img = RgbaImage::from_pixel(WIDTH, HEIGHT, BACKGROUND);

    let plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
    let plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
    let baseline = HEIGHT - MARGIN_BOTTOM;

    for step in 1..=4 {
        let y = baseline - plot_h * step / 4;
        fill(&mut img, MARGIN_LEFT, y, plot_w, 1, GRID);
        draw_number(&mut img, 4, y.saturating_sub(5), max * step as f64 / 4.0, 2, AXIS);
    }

    let slot = plot_w / values.len() as u32;
    let bar_w = (slot * 7 / 10).max(1);
    for (i, value) in values.iter().enumerate() {
        let h = ((value / max) * plot_h as f64).round() as u32;
        let x = MARGIN_LEFT + slot * i as u32 + (slot - bar_w) / 2;
        fill(&mut img, x, baseline - h, bar_w, h, PALETTE[i % PALETTE.len()]);
        if slot >= 16 {
            let label_y = (baseline - h).saturating_sub(14).max(2);
            draw_number(&mut img, x, label_y, *value, 2, LABEL);
        }
    }

    fill(&mut img, MARGIN_LEFT, MARGIN_TOP, 1, plot_h + 1, AXIS);
    fill(&mut img, MARGIN_LEFT, baseline, plot_w, 1, AXIS);

    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), ImageFormat::Png)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(png)
}

fn fill(img: &mut RgbaImage, x: u32, y: u32, w: u32, h: u32, color: Rgba<u8>) {
    for yy in y..(y + h).min(img.height()) {
        for xx in x..(x + w).min(img.width()) {
            img.put_pixel(xx, yy, color);
        }
    }
}

/// 3x5 glyphs for `0`-`9` and `.`; each row is three bits, most significant on the left.
fn glyph(c: char) -> Option<[u8; 5]> {
    Some(match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b010, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        '.' => [0b000, 0b000, 0b000, 0b000, 0b010],
        _ => return None,
    })
}

fn draw_number(img: &mut RgbaImage, x: u32, y: u32, value: f64, scale: u32, color: Rgba<u8>) {
    let text = if value.fract() == 0.0 { format!("{value:.0}") } else { format!("{value:.1}") };
    let mut cx = x;
    for c in text.chars() {
        let Some(rows) = glyph(c) else { continue };
        for (ry, bits) in rows.iter().enumerate() {
            for rx in 0..3 {
                if bits & (0b100 >> rx) != 0 {
                    fill(img, cx + rx * scale, y + ry as u32 * scale, scale, scale, color);
                }
            }
        }
        cx += 4 * scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_is_a_png_of_the_documented_size() {
        let png = bar_chart_png(&[1.0, 2.0, 3.0]).unwrap();
        let img = image::load_from_memory_with_format(&png, ImageFormat::Png).unwrap();
        assert_eq!((img.width(), img.height()), (WIDTH, HEIGHT));
    }

    #[test]
    fn taller_value_paints_a_taller_bar() {
        let png = bar_chart_png(&[1.0, 4.0]).unwrap();
        let img = image::load_from_memory(&png).unwrap().to_rgba8();
        let column_height = |x: u32| (0..HEIGHT).filter(|y| img.get_pixel(x, *y) != &BACKGROUND && img.get_pixel(x, *y) != &GRID).count();
        let slot = (WIDTH - MARGIN_LEFT - MARGIN_RIGHT) / 2;
        let first = column_height(MARGIN_LEFT + slot / 2);
        let second = column_height(MARGIN_LEFT + slot + slot / 2);
        assert!(second > first * 3, "second bar {second}px should be ~4x first {first}px");
    }

    #[test]
    fn refuses_bad_values() {
        assert!(bar_chart_png(&[]).is_err());
        assert!(bar_chart_png(&[-1.0]).is_err());
        assert!(bar_chart_png(&[f64::NAN]).is_err());
        assert!(bar_chart_png(&vec![1.0; MAX_BARS + 1]).is_err());
    }
}
