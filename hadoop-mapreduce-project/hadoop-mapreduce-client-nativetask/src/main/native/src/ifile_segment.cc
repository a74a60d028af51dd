#include "ifile_segment.h"

#include <hadoop_accel/accel.h>

#include <algorithm>
#include <limits>

#include "byte_order.h"
#include "writable_vint.h"

namespace hadoop_accel::jbs {
namespace {
constexpr size_t kInflateBufferSize = 64 * 1024;
constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 31;  // key + value lengths are Java ints
}  // namespace

SegmentReader::SegmentReader(ChunkSource* source, Codec codec) : source_(source), codec_(codec) {
  uint64_t disk = source_->disk_length();
  if (disk < kIFileTrailerSize) {
    Fail(ErrorKind::kCorrupt, "segment shorter than its checksum trailer");
    return;
  }
  if (codec_ == Codec::kZlib) {
    if (inflateInit(&zs_) != Z_OK) {
      Fail(ErrorKind::kCorrupt, "inflateInit failed");
      return;
    }
    zs_open_ = true;
    inflated_.resize(kInflateBufferSize);
    uint64_t raw = source_->raw_length();
    max_record_ = raw != 0 ? std::min(raw, kMaxRecordBytes) : kMaxRecordBytes;
  } else if (codec_ == Codec::kSnappy || codec_ == Codec::kLz4) {
    uint64_t raw = source_->raw_length();
    block_ = std::make_unique<BlockDecoder>(codec_, disk - kIFileTrailerSize, raw);
    if (!block_->error().empty()) {
      Fail(ErrorKind::kCorrupt, block_->error());
      return;
    }
    max_record_ = raw != 0 ? std::min(raw, kMaxRecordBytes) : kMaxRecordBytes;
  } else if (codec_ == Codec::kNone) {
    max_record_ = std::min<uint64_t>(disk - kIFileTrailerSize, kMaxRecordBytes);
  } else {
    Fail(ErrorKind::kCorrupt, "unknown codec " + std::to_string(static_cast<int>(codec_)));
  }
}

SegmentReader::~SegmentReader() {
  if (zs_open_) inflateEnd(&zs_);
}

bool SegmentReader::Fail(ErrorKind kind, std::string message) {
  if (kind_ == ErrorKind::kNone) {
    kind_ = kind;
    error_ = std::move(message);
  }
  return false;
}

// Takes the next on-disk chunk, splits off trailer bytes, and checks the CRC at the end.
bool SegmentReader::PullChunk() {
  uint64_t disk = source_->disk_length();
  std::string err;
  if (!source_->Next(&chunk_, &err)) return Fail(ErrorKind::kSource, err);
  if (chunk_.empty()) return Fail(ErrorKind::kSource, "empty chunk");
  if (chunk_.size() > disk - disk_pulled_)
    return Fail(ErrorKind::kSource, "chunk past the segment's end");
  uint64_t data_end = disk - kIFileTrailerSize;
  chunk_data_ =
      disk_pulled_ >= data_end
          ? 0
          : static_cast<size_t>(std::min<uint64_t>(chunk_.size(), data_end - disk_pulled_));
  crc_ = hacc_crc32_update(crc_, chunk_.data(), chunk_data_);
  for (size_t i = chunk_data_; i < chunk_.size(); ++i) trailer_[trailer_got_++] = chunk_[i];
  disk_pulled_ += chunk_.size();
  prefetched_ = false;
  if (disk_pulled_ == disk && LoadBe32(trailer_) != crc_)
    return Fail(ErrorKind::kCorrupt, "IFile checksum mismatch");
  return true;
}

bool SegmentReader::NextSpan() {
  if (kind_ != ErrorKind::kNone) return false;
  uint64_t disk = source_->disk_length();
  if (codec_ == Codec::kNone) {
    while (disk_pulled_ < disk) {
      if (!PullChunk()) return false;
      span_ = chunk_.data();
      span_len_ = chunk_data_;
      span_pos_ = 0;
      if (span_len_ > 0) return true;
    }
    return false;
  }
  if (block_) return NextBlockSpan();
  for (;;) {
    if (zs_ended_) return false;
    if (zs_.avail_in == 0) {
      if (disk_pulled_ == disk) return Fail(ErrorKind::kCorrupt, "truncated compressed stream");
      if (!PullChunk()) return false;
      zs_.next_in = chunk_.data();
      zs_.avail_in = static_cast<uInt>(chunk_data_);
      if (chunk_data_ == 0) continue;
    }
    zs_.next_out = inflated_.data();
    zs_.avail_out = static_cast<uInt>(inflated_.size());
    int rc = inflate(&zs_, Z_NO_FLUSH);
    size_t produced = inflated_.size() - zs_.avail_out;
    if (rc == Z_STREAM_END) {
      zs_ended_ = true;
      // One zlib stream fills the segment up to its trailer.
      if (zs_.avail_in != 0 ||
          disk_pulled_ - chunk_.size() + chunk_data_ < disk - kIFileTrailerSize)
        return Fail(ErrorKind::kCorrupt, "bytes after the compressed stream");
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs_.avail_in == 0)) {
      return Fail(ErrorKind::kCorrupt, std::string("zlib: ") + (zs_.msg ? zs_.msg : "error"));
    }
    if (produced > 0) {
      span_ = inflated_.data();
      span_len_ = produced;
      span_pos_ = 0;
      return true;
    }
  }
}

bool SegmentReader::NextBlockSpan() {
  uint64_t disk = source_->disk_length();
  for (;;) {
    const uint8_t* out;
    size_t out_len;
    switch (block_->Decode(&block_in_, &block_avail_, &out, &out_len)) {
      case BlockDecoder::Step::kError:
        return Fail(ErrorKind::kCorrupt, block_->error());
      case BlockDecoder::Step::kOutput:
        if (out_len == 0) continue;
        span_ = out;
        span_len_ = out_len;
        span_pos_ = 0;
        return true;
      case BlockDecoder::Step::kNeedInput:
        if (disk_pulled_ == disk) {
          if (!block_->AtBoundary())
            return Fail(ErrorKind::kCorrupt, "truncated compressed stream");
          return false;  // every on-disk byte decoded
        }
        if (!PullChunk()) return false;
        block_in_ = chunk_.data();
        block_avail_ = chunk_data_;
        break;
    }
  }
}

bool SegmentReader::Read(size_t n, const uint8_t** p) {
  if (span_len_ - span_pos_ >= n) {
    *p = span_ + span_pos_;
    span_pos_ += n;
    return true;
  }
  assemble_.assign(span_ + span_pos_, span_ + span_len_);
  span_pos_ = span_len_;
  while (assemble_.size() < n) {
    if (!NextSpan()) return Fail(ErrorKind::kCorrupt, "segment truncated inside a record");
    size_t take = std::min(n - assemble_.size(), span_len_ - span_pos_);
    assemble_.insert(assemble_.end(), span_ + span_pos_, span_ + span_pos_ + take);
    span_pos_ += take;
  }
  *p = assemble_.data();
  return true;
}

bool SegmentReader::ReadVInt(int64_t* v) {
  const uint8_t* p;
  if (!Read(1, &p)) return false;
  uint8_t bytes[9];
  bytes[0] = p[0];
  int n = VIntSizeFromFirstByte(bytes[0]);
  if (n > 1) {
    if (!Read(static_cast<size_t>(n - 1), &p)) return false;
    std::copy(p, p + n - 1, bytes + 1);
  }
  *v = DecodeVLong(bytes);
  if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max())
    return Fail(ErrorKind::kCorrupt, "record length does not fit an int");
  return true;
}

// After the EOF marker: drain to the end of the on-disk bytes (so the CRC gets checked) and
// refuse any record byte that follows the marker.
bool SegmentReader::CheckNothingFollows() {
  if (span_pos_ != span_len_) return Fail(ErrorKind::kCorrupt, "data after the EOF marker");
  while (NextSpan())
    if (span_len_ > 0) return Fail(ErrorKind::kCorrupt, "data after the EOF marker");
  if (kind_ != ErrorKind::kNone) return false;
  if (codec_ == Codec::kZlib && !zs_ended_)
    return Fail(ErrorKind::kCorrupt, "compressed stream does not end");
  // The zlib stream may end before the trailer's chunks have arrived: take them (CRC check).
  while (disk_pulled_ < source_->disk_length()) {
    if (!PullChunk()) return false;
    if (chunk_data_ != 0) return Fail(ErrorKind::kCorrupt, "bytes after the compressed stream");
  }
  if (disk_pulled_ != source_->disk_length())
    return Fail(ErrorKind::kCorrupt, "segment ends early");
  return true;
}

void SegmentReader::MaybePrefetch() {
  if (prefetched_ || disk_pulled_ >= source_->disk_length()) return;
  size_t unread = block_ ? block_avail_ : zs_.avail_in;
  size_t consumed =
      codec_ == Codec::kNone ? span_pos_ : chunk_data_ - std::min<size_t>(chunk_data_, unread);
  if (consumed * 2 >= chunk_data_) {
    prefetched_ = true;
    source_->Prefetch();
  }
}

SegmentReader::Result SegmentReader::Next(RawRecord* rec) {
  if (kind_ != ErrorKind::kNone) return Result::kError;
  if (done_) return Result::kEnd;
  int64_t klen, vlen;
  if (!ReadVInt(&klen) || !ReadVInt(&vlen)) return Result::kError;
  if (klen == -1 && vlen == -1) {
    if (!CheckNothingFollows()) return Result::kError;
    done_ = true;
    return Result::kEnd;
  }
  if (klen < 0 || vlen < 0) {
    Fail(ErrorKind::kCorrupt, "negative key or value length");
    return Result::kError;
  }
  uint64_t total = static_cast<uint64_t>(klen) + static_cast<uint64_t>(vlen);
  if (total > max_record_) {
    Fail(ErrorKind::kCorrupt, "record longer than its segment");
    return Result::kError;
  }
  const uint8_t* p;
  if (!Read(static_cast<size_t>(total), &p)) return Result::kError;
  rec->key = p;
  rec->key_length = static_cast<size_t>(klen);
  rec->value = p + klen;
  rec->value_length = static_cast<size_t>(vlen);
  MaybePrefetch();
  return Result::kRecord;
}

}  // namespace hadoop_accel::jbs
