//! Image files written byte by byte: headers that claim enormous canvases.
#![allow(dead_code)]

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc_input = kind.to_vec();
    crc_input.extend_from_slice(data);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    out
}

/// A well-formed PNG (correct CRCs) whose IHDR claims `width × height` RGBA8, with a tiny IDAT.
pub fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]); // 8-bit RGBA, deflate, no filter, no interlace
    // zlib: header, one stored final block of 5 zero bytes, adler32 of those.
    let idat = [
        0x78, 0x01, 0x01, 0x05, 0x00, 0xFA, 0xFF, 0, 0, 0, 0, 0, 0x00, 0x05, 0x00, 0x01,
    ];
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(chunk(b"IHDR", &ihdr));
    out.extend(chunk(b"IDAT", &idat));
    out.extend(chunk(b"IEND", &[]));
    out
}

/// A BMP whose info header claims `width × height` at 24 bits per pixel, with no pixel data.
pub fn bmp_claiming(width: i32, height: i32) -> Vec<u8> {
    let mut out = b"BM".to_vec();
    out.extend_from_slice(&(54u32).to_le_bytes()); // file size (a lie; there is no data)
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(54u32).to_le_bytes()); // pixel data offset
    out.extend_from_slice(&(40u32).to_le_bytes()); // BITMAPINFOHEADER
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.extend_from_slice(&(1u16).to_le_bytes()); // planes
    out.extend_from_slice(&(24u16).to_le_bytes()); // bits per pixel
    out.extend_from_slice(&[0; 24]); // no compression, sizes and palette counts 0
    out
}

/// A GIF whose screen and first frame claim `width × height`, with a minimal image block.
pub fn gif_claiming(width: u16, height: u16) -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.extend_from_slice(&[0x80, 0, 0]); // global colour table of 2 entries
    out.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
    out.push(0x2C); // image descriptor
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&[0x02, 0x02, 0x44, 0x01, 0x00]); // LZW min size 2, one tiny sub-block
    out.push(0x3B);
    out
}
