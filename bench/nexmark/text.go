package nexmark

import (
	"strconv"
	"strings"
	"sync"
)

// Word lists: the reference's PersonGenerator lists. They are kept small so
// that the selective queries (q3 filters on OR, ID and CA) find matches even
// in short runs.
var (
	usStates   = [...]string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	usCities   = [...]string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	firstNames = [...]string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames  = [...]string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	// hotChannels are the four channels half of all bids come through, as
	// in the Flink Nexmark BidGenerator.
	hotChannels = [...]string{"Google", "Facebook", "Baidu", "Apple"}
)

const (
	// minStringLength is the shortest random word (the reference's
	// MIN_STRING_LENGTH).
	minStringLength = 3
	// numChannels is how many cold channels exist ("channel-0" ...).
	numChannels = 10_000
)

// fullNames holds every "First Last" pair so a person's name costs no
// allocation.
var fullNames = func() []string {
	out := make([]string, 0, len(firstNames)*len(lastNames))
	for _, f := range firstNames {
		for _, l := range lastNames {
			out = append(out, f+" "+l)
		}
	}
	return out
}()

// channels is every channel's name and the URL bids through it carry: the
// hot channels followed by the cold ones, channel i's name being
// text[bounds[2i]:bounds[2i+1]] and its URL text[bounds[2i+1]:bounds[2i+2]].
// Half the bids pick one of 10,004 channels at random; held as string
// headers the table would be 320 KiB, mostly cache misses, and as bounds
// it is 80 KiB, with a channel's three bounds side by side.
type channels struct {
	text   string
	bounds []uint32
}

// get returns channel i's name and URL.
func (c *channels) get(i int64) (name, url string) {
	b := c.bounds[2*i : 2*i+3 : 2*i+3]
	return c.text[b[0]:b[1]], c.text[b[1]:b[2]]
}

// channelTable returns the channels. The reference draws each channel's
// URL from an unseeded Random the first time the channel is used, so its
// URLs differ between runs; ours are a function of the channel number
// alone, so equal Configs give equal bytes everywhere.
var channelTable = sync.OnceValue(func() *channels {
	r := rng{state: 0x6e65786d61726b} // "nexmark"
	var text []byte
	bounds := make([]uint32, 0, 2*(len(hotChannels)+numChannels)+1)
	add := func(name string, tag bool, i int) {
		bounds = append(bounds, uint32(len(text)))
		text = append(text, name...)
		bounds = append(bounds, uint32(len(text)))
		text = append(text, "https://www.nexmark.com/"...)
		for range 3 {
			text = appendWord(text, &r, 5, '_')
			text = append(text, '/')
		}
		text = append(text, "item.htm?query=1"...)
		if tag && r.intn(10) > 0 { // nine channels in ten tag their URL, as the reference does
			text = append(text, "&channel_id="...)
			text = strconv.AppendUint(text, uint64(reverse32(uint32(i))&0x7fffffff), 10)
		}
	}
	for _, name := range hotChannels {
		add(name, false, 0)
	}
	for i := range numChannels {
		add("channel-"+strconv.Itoa(i), true, i)
	}
	bounds = append(bounds, uint32(len(text)))
	return &channels{text: string(text), bounds: bounds}
})

// reverse32 reverses the bits of v (the reference tags URLs with
// abs(Integer.reverse(channel))).
func reverse32(v uint32) uint32 {
	var out uint32
	for range 32 {
		out = out<<1 | v&1
		v >>= 1
	}
	return out
}

// appendWord appends a random word of minStringLength to maxLength-1 letters
// where each letter is a space (here sep) with probability 1/13, trimmed of
// leading and trailing separators: the reference's nextString.
func appendWord(b []byte, r *rng, maxLength int64, sep byte) []byte {
	n := minStringLength + r.intn(maxLength-minStringLength)
	start := len(b)
	for range n {
		if r.intn(13) == 0 {
			b = append(b, sep)
		} else {
			b = append(b, byte('a'+r.intn(26)))
		}
	}
	// Trim in place: drop trailing separators, then shift off leading ones.
	for len(b) > start && b[len(b)-1] == sep {
		b = b[:len(b)-1]
	}
	lead := start
	for lead < len(b) && b[lead] == sep {
		lead++
	}
	return append(b[:start], b[lead:]...)
}

// extraSize returns the length of an Extra field so that currentSize plus
// it averages avgSize: uniform in [d-δ, d+δ) where d = avgSize-currentSize
// and δ = d/5 rounded, and 0 if currentSize already exceeds avgSize; x is
// the 32 random bits it draws with. This is the reference's nextExtra (whose
// range is far below 2^32; see lemire32).
func extraSize(x uint32, currentSize, avgSize int) int {
	lo, span := extraRange(currentSize, avgSize)
	return int(lo + lemire32(x, span))
}

// extraRange returns the range [lo, lo+span) that extraSize draws from.
func extraRange(currentSize, avgSize int) (lo, span int64) {
	if currentSize > avgSize {
		return 0, 0
	}
	d := avgSize - currentSize
	delta := (d + 2) / 5 // round(d*0.2) for d >= 0
	return int64(d - delta), int64(2 * delta)
}

// extraPoolSize caps an Extra field's length (only an average size near
// 1 MiB would reach it); the pool holds twice this so any offset below it fits.
const extraPoolSize = 1 << 20

// extraPool is a fixed string of random letters that Extra fields are cut
// from at a random offset. The reference draws fresh letters for every event;
// slicing a shared pool gives the same sizes and byte distribution with no
// allocation or per-letter work, which doubles the generation rate. Extra is
// payload no query reads, so only its length matters.
var extraPool = sync.OnceValue(func() string {
	r := rng{state: 0x65787472612d706f} // "extra-po"
	b := make([]byte, 2*extraPoolSize)
	for i := range b {
		b[i] = byte('a' + r.intn(26))
	}
	return string(b)
})

// extraText returns a random Extra field for an entity whose other fields
// count currentSize bytes towards avgSize: a window of the extra pool, its
// length and offset drawn from one random word.
func (p *plan) extraText(r *rng, currentSize, avgSize int) string {
	size, off := r.split()
	n := min(extraSize(size, currentSize, avgSize), extraPoolSize)
	o := lemire32(off, extraPoolSize)
	return p.extra[o : o+int64(n)]
}

// bidExtraText is extraText for a bid (the hot path), whose Extra length
// range the plan works out once: the same draws, without a division.
func (p *plan) bidExtraText(r *rng) string {
	size, off := r.split()
	n := min(p.bidExtraLo+lemire32(size, p.bidExtraSpan), extraPoolSize)
	o := lemire32(off, extraPoolSize)
	return p.extra[o : o+n]
}

// Pre-generated text that events slice instead of building strings: the
// generator allocates nothing per event. Each pool is drawn once from a fixed
// seed, so equal Configs still give equal bytes everywhere.
const (
	// wordPoolSize is the length of the text random words are cut from:
	// 32 KiB, so that cutting a word at a random offset reads the cache,
	// not memory (a 1 MiB pool made auctions cost several times more).
	// That is 32,768 offsets times 97 lengths of distinct words.
	wordPoolSize = 1 << 15
	// emailPoolSize is how many distinct e-mail addresses persons draw from
	// (64 KiB of string headers, for the same reason).
	emailPoolSize = 1 << 12
	// cardGroups is how many four-digit groups the credit-card text holds
	// (20 KiB).
	cardGroups = 1 << 12
	// maxWordLength bounds pooledWord's maxLength (the longest the
	// generator asks for is an auction's 100-letter description).
	maxWordLength = 128
)

// wordPool is text in which each byte, independently, is a space with
// probability 1/13 and otherwise a uniformly drawn letter: the distribution
// of the reference's nextString letters.
var wordPool = sync.OnceValue(func() string {
	r := rng{state: 0x776f72642d706f6f} // "word-poo"
	b := make([]byte, wordPoolSize)
	for i := range b {
		if r.intn(13) == 0 {
			b[i] = ' '
		} else {
			b[i] = byte('a' + r.intn(26))
		}
	}
	return string(b)
})

// pooledWord returns a random word as the reference's nextString makes one
// (see appendWord): minStringLength to maxLength-1 letters, each a space
// with probability 1/13, trimmed of spaces. The letters are a window of
// words (wordPool) at a random offset, so its distribution is the reference's.
func pooledWord(words string, r *rng, maxLength int64) string {
	n := minStringLength + r.intn(maxLength-minStringLength)
	off := r.intn(wordPoolSize - maxWordLength)
	return strings.Trim(words[off:off+n], " ")
}

// emailPool holds emailPoolSize addresses made as the reference makes one:
// a word of up to 6 letters, '@', a word of up to 4 letters, ".com". A
// person draws one at random; no query reads e-mail addresses.
var emailPool = sync.OnceValue(func() []string {
	r := rng{state: 0x656d61696c2d706f} // "email-po"
	var text []byte
	ends := make([]int, 0, emailPoolSize)
	for range emailPoolSize {
		text = appendWord(text, &r, 7, ' ')
		text = append(text, '@')
		text = appendWord(text, &r, 5, ' ')
		text = append(text, ".com"...)
		ends = append(ends, len(text))
	}
	all := string(text)
	out := make([]string, emailPoolSize)
	lo := 0
	for i, hi := range ends {
		out[i], lo = all[lo:hi], hi
	}
	return out
})

// cardPool is cardGroups groups of four uniform digits, each followed by a
// space.
var cardPool = sync.OnceValue(func() string {
	r := rng{state: 0x636172642d706f6f} // "card-poo"
	b := make([]byte, 0, 5*cardGroups)
	for range cardGroups {
		v := r.intn(10_000)
		b = append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10), ' ')
	}
	return string(b)
})

// pooledCreditCard returns four space-separated groups of four digits, as
// the reference's credit card numbers: four consecutive groups of cards
// (cardPool)
// from a random one, so every group is uniform over 0000-9999.
func pooledCreditCard(cards string, r *rng) string {
	g := r.intn(cardGroups - 3)
	return cards[5*g : 5*g+19]
}
