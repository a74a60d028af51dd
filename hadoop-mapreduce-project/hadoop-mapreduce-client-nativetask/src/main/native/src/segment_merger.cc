#include "segment_merger.h"

#include <algorithm>

#include "byte_order.h"
#include "writable_vint.h"

namespace hadoop_accel::jbs {

bool StreamSink::Put(const uint8_t* p, size_t n) {
  while (n > 0) {
    size_t take = std::min(n, capacity_ - buf_.size());
    buf_.insert(buf_.end(), p, p + take);
    p += take;
    n -= take;
    if (buf_.size() == capacity_ && !FlushBuffer()) return false;
  }
  return true;
}

bool StreamSink::FlushBuffer() {
  if (buf_.empty()) return true;
  if (!flush_(buf_.data(), buf_.size(), &error_)) return false;
  bytes_ += buf_.size();
  buf_.clear();
  return true;
}

bool StreamSink::Append(const RawRecord& r, uint32_t) {
  uint8_t lens[18];
  size_t n = EncodeVLong(static_cast<int64_t>(r.key_length), lens);
  n += EncodeVLong(static_cast<int64_t>(r.value_length), lens + n);
  if (!Put(lens, n) || !Put(r.key, r.key_length) || !Put(r.value, r.value_length)) return false;
  ++records_;
  return true;
}

namespace {

struct Cursor {
  SegmentReader* reader;
  uint32_t order;
  bool order_prefixed;
  RawRecord rec;
};

// Checks the key's shape and takes a run record's map_index off its value.
bool Prepare(uint8_t key_type, Cursor* c) {
  if (!IsWellFormedKey(key_type, c->rec.key, c->rec.key_length)) return false;
  if (c->order_prefixed) {
    if (c->rec.value_length < 4) return false;
    c->order = LoadBe32(c->rec.value);
    c->rec.value += 4;
    c->rec.value_length -= 4;
  }
  return true;
}

}  // namespace

MergeResult MergeSegments(const std::vector<MergeInput>& inputs, uint8_t key_type,
                          RecordSink* sink) {
  MergeResult result;
  RawCompare cmp = ComparatorFor(key_type);
  auto fail_reader = [&](SegmentReader* r) {
    result.ok = false;
    result.failed_kind = r->error_kind();
    result.error = r->error();
    return result;
  };
  auto fail_key = [&]() {
    result.ok = false;
    result.failed_kind = SegmentReader::ErrorKind::kCorrupt;
    result.error = "a key does not fit its key type (or a run record lacks its map index)";
    return result;
  };
  if (cmp == nullptr) {
    result.ok = false;
    result.error = "unsupported key type";
    return result;
  }
  // std heap is a max-heap: "less" means "comes out later".
  auto later = [cmp](const Cursor& a, const Cursor& b) {
    int c = cmp(a.rec.key, a.rec.key_length, b.rec.key, b.rec.key_length);
    return c != 0 ? c > 0 : a.order > b.order;
  };
  std::vector<Cursor> heap;
  heap.reserve(inputs.size());
  for (const MergeInput& in : inputs) {
    Cursor c{in.reader, in.order, in.order_prefixed, {}};
    SegmentReader::Result r = c.reader->Next(&c.rec);
    if (r == SegmentReader::Result::kError) return fail_reader(c.reader);
    if (r == SegmentReader::Result::kEnd) continue;
    if (!Prepare(key_type, &c)) return fail_key();
    heap.push_back(c);
  }
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Cursor& top = heap.back();
    if (!sink->Append(top.rec, top.order)) {
      result.ok = false;
      result.error = sink->error();
      return result;
    }
    ++result.records;
    SegmentReader::Result r = top.reader->Next(&top.rec);
    if (r == SegmentReader::Result::kError) return fail_reader(top.reader);
    if (r == SegmentReader::Result::kEnd) {
      heap.pop_back();
      continue;
    }
    if (!Prepare(key_type, &top)) return fail_key();
    std::push_heap(heap.begin(), heap.end(), later);
  }
  if (!sink->Finish()) {
    result.ok = false;
    result.error = sink->error();
  }
  return result;
}

}  // namespace hadoop_accel::jbs
