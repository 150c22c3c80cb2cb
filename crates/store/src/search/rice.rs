//! The byte layout of a pair block (see [`super::blocks`]): a sorted set of integers below a
//! universe, Rice-coded in buckets with a directory, so one value's neighbourhood is read
//! without the rest. Pure: no SQL here.
//!
//! ```text
//! header (16 bytes)  'P' 1 k d | entries: u32 | span: u64      (little-endian)
//! directory          2^d + 1 × u32: each bucket's first bit in the data; the last is its end
//! data               per bucket, each value's gap from the one before (the first: from the
//!                    bucket's base), Rice-coded with parameter k: gap >> k in unary (ones, then
//!                    a zero), then the gap's low k bits; bits fill each byte from its lowest
//! ```
//!
//! A value is `token × span + offset` (`token` below 2^[`super::pairs::BITS`], `offset` below
//! `span`), so a token's values are one range; bucket `b` holds the values whose top `d` bits
//! (of the universe's width) are `b`, about 64 of them. At about 12 bits a value, a block costs
//! what FTS5's doclist of the same entries does, and is written in one row.

use super::pairs::BITS as TOKEN_BITS;

/// Bytes before the directory.
pub(crate) const HEADER_BYTES: usize = 16;
/// Values per bucket the directory aims at.
const BUCKET_VALUES: usize = 64;
/// At most 2^this buckets.
const MAX_DIRECTORY_BITS: u32 = 20;

/// Why a block cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage(pub &'static str);

/// A block's header, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    /// Rice parameter.
    pub k: u32,
    /// log2 of the bucket count.
    pub d: u32,
    /// Values in the block.
    pub entries: u32,
    /// Offsets per token.
    pub span: u64,
    /// Bits of a value below a bucket's number.
    shift: u32,
}

impl Header {
    /// Reads and checks the first [`HEADER_BYTES`] of a block of `len` bytes.
    pub fn parse(bytes: &[u8], len: usize) -> Result<Self, Damage> {
        let bytes: &[u8; HEADER_BYTES] = bytes.get(..HEADER_BYTES).and_then(|b| b.try_into().ok()).ok_or(Damage("a pair block is shorter than its header"))?;
        if bytes[0] != b'P' || bytes[1] != 1 {
            return Err(Damage("a pair block has an unknown format"));
        }
        let (k, d) = (u32::from(bytes[2]), u32::from(bytes[3]));
        let entries = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
        let span = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
        if span == 0 || span >= 1 << (63 - TOKEN_BITS) || k > 40 || d > MAX_DIRECTORY_BITS {
            return Err(Damage("a pair block's header is out of range"));
        }
        let shift = universe_bits(span).checked_sub(d).ok_or(Damage("a pair block's directory is larger than its values"))?;
        let header = Header { k, d, entries, span, shift };
        if len < header.data_start() {
            return Err(Damage("a pair block is shorter than its directory"));
        }
        Ok(header)
    }

    /// Where the directory entry of `bucket` is.
    pub fn directory_offset(&self, bucket: usize) -> usize {
        HEADER_BYTES + 4 * bucket
    }

    /// Where the data starts.
    pub fn data_start(&self) -> usize {
        self.directory_offset((1 << self.d) + 1)
    }

    /// The buckets holding `token`'s values.
    pub fn buckets_of(&self, token: u32) -> std::ops::RangeInclusive<usize> {
        let (low, high) = self.range_of(token);
        ((low >> self.shift) as usize)..=(((high - 1) >> self.shift) as usize)
    }

    /// `token`'s values: `[low, high)`.
    pub fn range_of(&self, token: u32) -> (u64, u64) {
        (u64::from(token) * self.span, (u64::from(token) + 1) * self.span)
    }

    fn universe(&self) -> u64 {
        self.span << TOKEN_BITS
    }
}

/// Bits needed for any value of a block of `span`.
fn universe_bits(span: u64) -> u32 {
    64 - ((span << TOKEN_BITS) - 1).leading_zeros()
}

/// Writes a block's values, in increasing order.
pub(crate) struct Encoder {
    header: Header,
    directory: Vec<u32>,
    bits: BitWriter,
    bucket: usize,
    previous: Option<u64>,
}

impl Encoder {
    /// A block for offsets below `span` and about `expected` values (it sizes the directory and
    /// the Rice parameter; fewer or more are still written right).
    pub fn new(span: u64, expected: usize) -> Self {
        let expected = expected.max(1) as u64;
        let ubits = universe_bits(span);
        let d = ((expected / BUCKET_VALUES as u64).max(1).ilog2()).min(MAX_DIRECTORY_BITS).min(ubits);
        let k = ((span << TOKEN_BITS) / expected).max(1).ilog2().min(40);
        let header = Header { k, d, entries: 0, span, shift: ubits - d };
        Encoder { header, directory: vec![0; (1 << d) + 1], bits: BitWriter::default(), bucket: 0, previous: None }
    }

    /// Adds `value` (greater than the last one, below `span × 2^BITS`).
    pub fn push(&mut self, value: u64) {
        debug_assert!(value < self.header.universe());
        let bucket = (value >> self.header.shift) as usize;
        while self.bucket < bucket {
            self.bucket += 1;
            self.directory[self.bucket] = self.bits.len as u32;
            self.previous = None;
        }
        let gap = match self.previous {
            Some(previous) => value - previous - 1,
            None => value - ((bucket as u64) << self.header.shift),
        };
        self.bits.unary(gap >> self.header.k);
        self.bits.put(gap, self.header.k);
        self.previous = Some(value);
        self.header.entries += 1;
    }

    /// The block's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        let end = self.bits.len as u32;
        for entry in &mut self.directory[self.bucket + 1..] {
            *entry = end;
        }
        let data = self.bits.finish();
        let mut out = Vec::with_capacity(self.header.data_start() + data.len());
        out.extend_from_slice(&[b'P', 1, self.header.k as u8, self.header.d as u8]);
        out.extend_from_slice(&self.header.entries.to_le_bytes());
        out.extend_from_slice(&self.header.span.to_le_bytes());
        for entry in &self.directory {
            out.extend_from_slice(&entry.to_le_bytes());
        }
        out.extend_from_slice(&data);
        out
    }

    /// Values written.
    pub fn entries(&self) -> u32 {
        self.header.entries
    }
}

/// Decodes the values of bucket `bucket`, from bit `start` to bit `end` of `data` (the bytes
/// from the one holding `start`: `start` and `end` count from that byte's first bit), giving
/// each to `each`.
pub(crate) fn decode_bucket(header: &Header, bucket: usize, data: &[u8], start: u64, end: u64, each: &mut dyn FnMut(u64)) -> Result<(), Damage> {
    let mut reader = BitReader { data, position: start, end };
    let mut previous: Option<u64> = None;
    while reader.position < end {
        let value = next_value(header, bucket, &mut reader, previous)?;
        each(value);
        previous = Some(value);
    }
    Ok(())
}

/// The value after `previous` in `bucket` (the first one when `None`).
fn next_value(header: &Header, bucket: usize, reader: &mut BitReader<'_>, previous: Option<u64>) -> Result<u64, Damage> {
    const OUT_OF_RANGE: Damage = Damage("a pair block's value is out of range");
    let limit = (((bucket as u64) + 1) << header.shift).min(header.universe());
    let high = reader.unary()?;
    let gap = high.checked_shl(header.k).filter(|g| g >> header.k == high).ok_or(OUT_OF_RANGE)? | reader.get(header.k)?;
    match previous {
        Some(previous) => previous.checked_add(gap + 1),
        None => ((bucket as u64) << header.shift).checked_add(gap),
    }
    .filter(|v| *v < limit)
    .ok_or(OUT_OF_RANGE)
}

/// Every value of a whole block, in order (for merging and checking); an `Err` item, then
/// nothing, when it is damaged.
pub(crate) struct Values<'a> {
    header: Header,
    block: &'a [u8],
    reader: BitReader<'a>,
    bucket: usize,
    previous: Option<u64>,
    count: u64,
    done: bool,
}

impl<'a> Values<'a> {
    /// The values of `block`.
    pub fn new(block: &'a [u8]) -> Result<Self, Damage> {
        let header = Header::parse(block, block.len())?;
        let data = &block[header.data_start()..];
        let mut values = Values { header, block, reader: BitReader { data, position: 0, end: 0 }, bucket: 0, previous: None, count: 0, done: false };
        values.reader.end = values.directory(0);
        values.reader.position = values.reader.end;
        if values.reader.position != 0 {
            return Err(Damage("a pair block's directory is out of order"));
        }
        values.reader.end = values.directory(1);
        if values.reader.end > data.len() as u64 * 8 {
            return Err(Damage("a pair block's bucket runs past its end"));
        }
        Ok(values)
    }

    /// The block's header.
    pub fn header(&self) -> Header {
        self.header
    }

    fn directory(&self, bucket: usize) -> u64 {
        let at = self.header.directory_offset(bucket);
        u64::from(u32::from_le_bytes(self.block[at..at + 4].try_into().unwrap()))
    }

    fn step(&mut self) -> Result<Option<u64>, Damage> {
        while self.reader.position >= self.reader.end {
            if self.reader.position > self.reader.end || self.reader.end > self.reader.data.len() as u64 * 8 {
                return Err(Damage("a pair block's bucket runs past its end"));
            }
            self.bucket += 1;
            if self.bucket == 1 << self.header.d {
                if self.count != u64::from(self.header.entries) {
                    return Err(Damage("a pair block holds another count of values than its header says"));
                }
                return Ok(None);
            }
            self.reader.end = self.directory(self.bucket + 1);
            self.previous = None;
        }
        let value = next_value(&self.header, self.bucket, &mut self.reader, self.previous)?;
        self.previous = Some(value);
        self.count += 1;
        Ok(Some(value))
    }
}

impl Iterator for Values<'_> {
    type Item = Result<u64, Damage>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = self.step().transpose();
        if !matches!(step, Some(Ok(_))) {
            self.done = true;
        }
        step
    }
}

/// Every value of a whole block, in order, given to `each`; `Err` when it is damaged.
pub(crate) fn decode_all(block: &[u8], each: &mut dyn FnMut(u64)) -> Result<Header, Damage> {
    let mut values = Values::new(block)?;
    for value in values.by_ref() {
        each(value?);
    }
    Ok(values.header())
}

/// Bits, each byte filled from its lowest.
#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    pending: u64,
    pending_bits: u32,
    len: u64,
}

impl BitWriter {
    /// The low `bits` of `value` (at most 64).
    fn put(&mut self, value: u64, bits: u32) {
        if bits > 32 {
            self.put(value & 0xFFFF_FFFF, 32);
            self.put(value >> 32, bits - 32);
            return;
        }
        let masked = if bits == 0 { 0 } else { value & (u64::MAX >> (64 - bits)) };
        self.pending |= masked << self.pending_bits;
        self.pending_bits += bits;
        self.len += u64::from(bits);
        while self.pending_bits >= 8 {
            self.out.push(self.pending as u8);
            self.pending >>= 8;
            self.pending_bits -= 8;
        }
    }

    /// `count` ones, then a zero.
    fn unary(&mut self, mut count: u64) {
        while count >= 32 {
            self.put(0xFFFF_FFFF, 32);
            count -= 32;
        }
        self.put((1 << count) - 1, count as u32 + 1);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.pending_bits > 0 {
            self.out.push(self.pending as u8);
        }
        self.out
    }
}

struct BitReader<'a> {
    data: &'a [u8],
    position: u64,
    end: u64,
}

impl BitReader<'_> {
    /// The next 56 bits (fewer past the data's end: zeros).
    fn peek(&self) -> u64 {
        let byte = (self.position / 8) as usize;
        let mut word = [0u8; 8];
        if let Some(bytes) = self.data.get(byte..) {
            let available = bytes.len().min(8);
            word[..available].copy_from_slice(&bytes[..available]);
        }
        u64::from_le_bytes(word) >> (self.position % 8)
    }

    fn advance(&mut self, bits: u64) -> Result<(), Damage> {
        self.position += bits;
        if self.position > self.end {
            return Err(Damage("a pair block's bucket runs past its end"));
        }
        Ok(())
    }

    fn get(&mut self, bits: u32) -> Result<u64, Damage> {
        if bits == 0 {
            return Ok(0);
        }
        // At most 40 bits (the header's bound on k): one peek.
        let value = self.peek() & (u64::MAX >> (64 - bits));
        self.advance(u64::from(bits))?;
        Ok(value)
    }

    fn unary(&mut self) -> Result<u64, Damage> {
        let mut count = 0;
        loop {
            let ones = (!self.peek()).trailing_zeros().min(56);
            if ones < 56 {
                self.advance(u64::from(ones) + 1)?;
                return Ok(count + u64::from(ones));
            }
            count += 56;
            self.advance(56)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(span: u64, values: &[u64], expected: usize) -> Vec<u8> {
        let mut encoder = Encoder::new(span, expected);
        values.iter().for_each(|v| encoder.push(*v));
        encoder.finish()
    }

    fn all(block: &[u8]) -> Result<Vec<u64>, Damage> {
        let mut out = Vec::new();
        decode_all(block, &mut |v| out.push(v))?;
        Ok(out)
    }

    /// The values of `token` as a lookup reads them: the buckets' directory entries and data.
    fn lookup(block: &[u8], token: u32) -> Vec<u64> {
        let header = Header::parse(block, block.len()).unwrap();
        let (low, high) = header.range_of(token);
        let mut out = Vec::new();
        for bucket in header.buckets_of(token) {
            let entry = |b: usize| u64::from(u32::from_le_bytes(block[header.directory_offset(b)..header.directory_offset(b) + 4].try_into().unwrap()));
            let (start, end) = (entry(bucket), entry(bucket + 1));
            let first_byte = header.data_start() + (start / 8) as usize;
            decode_bucket(&header, bucket, &block[first_byte..], start % 8, end - start / 8 * 8, &mut |v| {
                if (low..high).contains(&v) {
                    out.push(v - low);
                }
            })
            .unwrap();
        }
        out
    }

    #[test]
    fn values_come_back_whole_and_by_token() {
        let span = 37;
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut values: Vec<u64> = (0..20_000)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng % (span << TOKEN_BITS)
            })
            .collect();
        // A token with several offsets, the first and the last value there can be.
        values.extend([5 * span, 5 * span + 3, 5 * span + 36, 0, (span << TOKEN_BITS) - 1]);
        values.sort_unstable();
        values.dedup();
        let block = encode(span, &values, values.len());
        assert_eq!(all(&block).unwrap(), values);
        assert_eq!(lookup(&block, 5), vec![0, 3, 36]);
        assert_eq!(lookup(&block, (1 << TOKEN_BITS) - 1).last(), Some(&(span - 1)));
        for token in [0u32, 77, 4242, 999_999] {
            let expected: Vec<u64> = values.iter().filter(|v| *v / span == u64::from(token)).map(|v| v % span).collect();
            assert_eq!(lookup(&block, token), expected, "token {token}");
        }
        // About 12 bits a value for this density, the directory included.
        assert!(block.len() * 8 < values.len() * 15, "{} bytes for {} values", block.len(), values.len());
    }

    #[test]
    fn a_guess_of_the_count_far_off_still_round_trips() {
        let values: Vec<u64> = (0..500).map(|i| i * 1_000_003).collect();
        for expected in [1, 500, 1_000_000] {
            assert_eq!(all(&encode(1 << 12, &values, expected)).unwrap(), values);
        }
        assert_eq!(all(&encode(1, &[], 0)).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn damage_is_an_error_never_a_panic() {
        let values: Vec<u64> = (0..3_000).map(|i| i * 997).collect();
        let block = encode(16, &values, values.len());
        assert!(all(&block[..10]).is_err());
        let mut wrong_count = block.clone();
        wrong_count[4] ^= 1;
        assert!(all(&wrong_count).is_err());
        let mut format = block.clone();
        format[1] = 9;
        assert!(all(&format).is_err());
        // Every byte flipped in turn: an error or other values, never a panic or a hang.
        for i in 0..block.len() {
            let mut flipped = block.clone();
            flipped[i] ^= 0xA5;
            let _ = all(&flipped);
        }
        assert!(all(&block[..block.len() - 1]).is_err(), "cut short");
    }
}
