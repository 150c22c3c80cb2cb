//! Decompression bombs are refused from the header, before any pixel buffer exists. A counting
//! global allocator records the largest single allocation made while each bomb is handled.
//! (One test function: the allocator's record is process-wide.)

#[path = "support/crafted.rs"]
mod crafted;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_canvas_render::{
    ImageFormat, Limits, RenderError, decode_limited, image_info, to_display_png,
};

struct RecordingAllocator;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for RecordingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: RecordingAllocator = RecordingAllocator;

/// Runs `work` and returns its result with the largest single allocation it made.
fn largest_allocation<T>(work: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.store(0, Ordering::SeqCst);
    let result = work();
    (result, LARGEST.load(Ordering::SeqCst))
}

const ONE_MB: usize = 1 << 20;

#[test]
fn bombs_are_refused_before_allocating() {
    // The recorder sees a large allocation when there is one.
    let (_, largest) = largest_allocation(|| std::hint::black_box(vec![1u8; 4 * ONE_MB]).len());
    assert!(largest >= 4 * ONE_MB, "recorder saw only {largest}");

    let bombs: Vec<(&str, Vec<u8>, ImageFormat, u32, u32)> = vec![
        (
            "PNG 100000 × 100000",
            crafted::png_claiming(100_000, 100_000),
            ImageFormat::Png,
            100_000,
            100_000,
        ),
        (
            "BMP 60000 × 60000",
            crafted::bmp_claiming(60_000, 60_000),
            ImageFormat::Bmp,
            60_000,
            60_000,
        ),
        (
            "GIF 65535 × 65535",
            crafted::gif_claiming(65_535, 65_535),
            ImageFormat::Gif,
            65_535,
            65_535,
        ),
    ];
    for (name, bytes, format, width, height) in bombs {
        let (info, largest) = largest_allocation(|| image_info(&bytes));
        let info = info.unwrap_or_else(|error| panic!("{name}: header should read: {error}"));
        assert_eq!(
            (info.width, info.height, info.format),
            (width, height, format),
            "{name}"
        );
        assert!(
            largest < ONE_MB,
            "{name}: image_info allocated {largest} bytes at once"
        );

        let (result, largest) = largest_allocation(|| decode_limited(&bytes, Limits::default()));
        let error = result.expect_err(name);
        let pixels = u64::from(width) * u64::from(height);
        assert!(
            matches!(error, RenderError::ImageTooLarge { width: w, height: h, pixels: p, max_pixels: 100_000_000 }
                if w == width && h == height && p == pixels),
            "{name}: {error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("over the limit of 100000000")
                && message.contains("refused before decoding"),
            "{message}"
        );
        assert!(
            largest < ONE_MB,
            "{name}: decode_limited allocated {largest} bytes at once"
        );

        // Also with no resizing, where a PNG would otherwise pass through untouched.
        for max_width in [Some(200), None] {
            let (result, largest) = largest_allocation(|| to_display_png(&bytes, max_width));
            assert!(
                matches!(result, Err(RenderError::ImageTooLarge { .. })),
                "{name} {max_width:?}: {result:?}"
            );
            assert!(
                largest < ONE_MB,
                "{name}: to_display_png allocated {largest} bytes at once"
            );
        }
    }

    // Under the pixel limit but over the allocation limit: 3000 × 3000 RGBA8 is 36 MB.
    let bytes = crafted::png_claiming(3000, 3000);
    let (result, largest) = largest_allocation(|| {
        decode_limited(
            &bytes,
            Limits {
                max_pixels: 100_000_000,
                max_alloc: 8 * ONE_MB as u64,
            },
        )
    });
    assert!(
        matches!(
            result,
            Err(RenderError::ImageAllocationTooLarge {
                bytes: 36_000_000,
                max_bytes: 8_388_608
            })
        ),
        "{result:?}"
    );
    assert!(largest < ONE_MB, "allocated {largest} bytes at once");
    // And a lower pixel limit is honoured too.
    let result = decode_limited(
        &bytes,
        Limits {
            max_pixels: 1_000_000,
            ..Limits::default()
        },
    );
    assert!(
        matches!(
            result,
            Err(RenderError::ImageTooLarge {
                pixels: 9_000_000,
                ..
            })
        ),
        "{result:?}"
    );
    // Within both limits the (lying) file is decoded and fails on its missing data, not a panic.
    let result = decode_limited(&crafted::png_claiming(64, 64), Limits::default());
    assert!(
        matches!(result, Err(RenderError::ImageDecode(_))),
        "{result:?}"
    );
}
