package codec_test

import (
	"encoding/binary"
	"math"
)

// The record shapes of the codec benchmarks and property tests: a struct of
// scalars, and the shapes of the Nexmark Bid, Person and Auction (the
// benchmark's records, copied here so the codec does not depend on it).

// Scalars is a struct of fixed-width and varint scalars only.
type Scalars struct {
	ID    int64
	Count uint32
	Small int16
	Flag  bool
	Code  uint8
	Temp  float64
	Ratio float32
	Seq   uint64
}

// BidLike has the fields of nexmark.Bid.
type BidLike struct {
	Auction  int64
	Bidder   int64
	Price    int64
	Channel  string
	URL      string
	DateTime int64
	Extra    string
}

// PersonLike has the fields of nexmark.Person.
type PersonLike struct {
	ID           int64
	Name         string
	EmailAddress string
	CreditCard   string
	City         string
	State        string
	DateTime     int64
	Extra        string
}

// AuctionLike has the fields of nexmark.Auction.
type AuctionLike struct {
	ID          int64
	ItemName    string
	Description string
	InitialBid  int64
	Reserve     int64
	DateTime    int64
	Expires     int64
	Seller      int64
	Category    int64
	Extra       string
}

// EventLike is nexmark.Event: a tag and the three entities by value.
type EventLike struct {
	Kind    uint8
	Person  PersonLike
	Auction AuctionLike
	Bid     BidLike
}

// Hand-written encoders and decoders of the same wire format with
// encoding/binary, with the checks the codec makes: the baselines of the
// benchmarks and the oracles of the property tests. A decoder returns the
// bytes consumed, or 0 when the input is corrupt.

// hw is a hand-written decoder's cursor over its input.
type hw struct {
	buf []byte
	n   int
	bad bool
}

func (r *hw) varint() int64 {
	x, k := binary.Varint(r.buf[r.n:])
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.n += k
	return x
}

func (r *hw) uvarint() uint64 {
	x, k := binary.Uvarint(r.buf[r.n:])
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.n += k
	return x
}

func (r *hw) str() string {
	l := r.uvarint()
	if r.bad || l > uint64(len(r.buf)-r.n) {
		r.bad = true
		return ""
	}
	s := string(r.buf[r.n : r.n+int(l)])
	r.n += int(l)
	return s
}

func (r *hw) fixed(size int) []byte {
	if r.bad || len(r.buf)-r.n < size {
		r.bad = true
		return make([]byte, size)
	}
	b := r.buf[r.n : r.n+size]
	r.n += size
	return b
}

func (r *hw) done() int {
	if r.bad {
		return 0
	}
	return r.n
}

func hwAppendStr(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

func hwAppendScalars(buf []byte, v Scalars) []byte {
	buf = binary.AppendVarint(buf, v.ID)
	buf = binary.AppendUvarint(buf, uint64(v.Count))
	buf = binary.AppendVarint(buf, int64(v.Small))
	b := byte(0)
	if v.Flag {
		b = 1
	}
	buf = append(buf, b, v.Code)
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.Temp))
	buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v.Ratio))
	return binary.AppendUvarint(buf, v.Seq)
}

func hwDecodeScalars(buf []byte) (Scalars, int) {
	r := hw{buf: buf}
	var v Scalars
	v.ID = r.varint()
	c := r.uvarint()
	s := r.varint()
	if c > math.MaxUint32 || s != int64(int16(s)) {
		r.bad = true
	}
	v.Count, v.Small = uint32(c), int16(s)
	fb := r.fixed(2)
	if fb[0] > 1 {
		r.bad = true
	}
	v.Flag, v.Code = fb[0] == 1, fb[1]
	v.Temp = math.Float64frombits(binary.LittleEndian.Uint64(r.fixed(8)))
	v.Ratio = math.Float32frombits(binary.LittleEndian.Uint32(r.fixed(4)))
	v.Seq = r.uvarint()
	return v, r.done()
}

func hwAppendBid(buf []byte, v BidLike) []byte {
	buf = binary.AppendVarint(buf, v.Auction)
	buf = binary.AppendVarint(buf, v.Bidder)
	buf = binary.AppendVarint(buf, v.Price)
	buf = hwAppendStr(buf, v.Channel)
	buf = hwAppendStr(buf, v.URL)
	buf = binary.AppendVarint(buf, v.DateTime)
	return hwAppendStr(buf, v.Extra)
}

func hwDecodeBid(buf []byte) (BidLike, int) {
	r := hw{buf: buf}
	var v BidLike
	v.Auction, v.Bidder, v.Price = r.varint(), r.varint(), r.varint()
	v.Channel, v.URL = r.str(), r.str()
	v.DateTime, v.Extra = r.varint(), r.str()
	return v, r.done()
}

func hwAppendPerson(buf []byte, v PersonLike) []byte {
	buf = binary.AppendVarint(buf, v.ID)
	buf = hwAppendStr(buf, v.Name)
	buf = hwAppendStr(buf, v.EmailAddress)
	buf = hwAppendStr(buf, v.CreditCard)
	buf = hwAppendStr(buf, v.City)
	buf = hwAppendStr(buf, v.State)
	buf = binary.AppendVarint(buf, v.DateTime)
	return hwAppendStr(buf, v.Extra)
}

func hwDecodePerson(buf []byte) (PersonLike, int) {
	r := hw{buf: buf}
	var v PersonLike
	v.ID = r.varint()
	v.Name, v.EmailAddress, v.CreditCard, v.City, v.State = r.str(), r.str(), r.str(), r.str(), r.str()
	v.DateTime, v.Extra = r.varint(), r.str()
	return v, r.done()
}

func hwAppendAuction(buf []byte, v AuctionLike) []byte {
	buf = binary.AppendVarint(buf, v.ID)
	buf = hwAppendStr(buf, v.ItemName)
	buf = hwAppendStr(buf, v.Description)
	for _, x := range []int64{v.InitialBid, v.Reserve, v.DateTime, v.Expires, v.Seller, v.Category} {
		buf = binary.AppendVarint(buf, x)
	}
	return hwAppendStr(buf, v.Extra)
}

func hwDecodeAuction(buf []byte) (AuctionLike, int) {
	r := hw{buf: buf}
	var v AuctionLike
	v.ID = r.varint()
	v.ItemName, v.Description = r.str(), r.str()
	v.InitialBid, v.Reserve, v.DateTime = r.varint(), r.varint(), r.varint()
	v.Expires, v.Seller, v.Category = r.varint(), r.varint(), r.varint()
	v.Extra = r.str()
	return v, r.done()
}

// Sample values: sizes and magnitudes as the Nexmark generator makes them.
var (
	sampleScalars = Scalars{ID: 1_000_123_456, Count: 4711, Small: -12, Flag: true, Code: 7, Temp: 21.25, Ratio: 0.5, Seq: 1 << 40}
	sampleBid     = BidLike{Auction: 1_000_123, Bidder: 1_004_567, Price: 48_213, Channel: "channel-4711",
		URL: "https://www.nexmark.com/abc/defgh/item.htm?query=1&channel_id=1234", DateTime: 1_764_000_000_123, Extra: "zyxwvutsrq"}
	samplePerson = PersonLike{ID: 1_001_234, Name: "Walter Shultz", EmailAddress: "abcdef@ghijk.com",
		CreditCard: "1234 5678 9012 3456", City: "Portland", State: "OR", DateTime: 1_764_000_000_456, Extra: "qwertyuiopasdf"}
	sampleAuction = AuctionLike{ID: 1_000_321, ItemName: "vintage lamp", Description: "a lamp, barely used, from an attic",
		InitialBid: 1_234, Reserve: 5_678, DateTime: 1_764_000_000_789, Expires: 1_764_000_020_789, Seller: 1_001_200,
		Category: 12, Extra: "mnbvcxzlkj"}
)
