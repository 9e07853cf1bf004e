package nexmark

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestEventAtAllocatesNothing(t *testing.T) {
	c := testConfig(10_000)
	for i := range int64(100) { // build the shared text of every kind first
		c.EventAt(i)
	}
	n := int64(0)
	if a := testing.AllocsPerRun(10_000, func() { c.EventAt(n % c.NumEvents); n++ }); a != 0 {
		t.Fatalf("EventAt allocates %.2f times per event, want 0", a)
	}
}

// wordStats summarizes random words: mean length, share of words holding a
// space, and the share of each letter among letters.
type wordStats struct {
	meanLen, withSpace float64
	letters            [26]float64
}

func statsOf(words []string) wordStats {
	var s wordStats
	var letters float64
	for _, w := range words {
		s.meanLen += float64(len(w))
		if strings.Contains(w, " ") {
			s.withSpace++
		}
		for _, c := range []byte(w) {
			if c != ' ' {
				s.letters[c-'a']++
				letters++
			}
		}
	}
	s.meanLen /= float64(len(words))
	s.withSpace /= float64(len(words))
	for i := range s.letters {
		s.letters[i] /= letters
	}
	return s
}

// TestPooledWordsFollowTheReference draws words both ways, the reference's
// letter by letter (appendWord) and as windows of the shared pool
// (pooledWord), and checks that their statistics agree: slicing
// pre-generated text keeps the event distribution.
func TestPooledWordsFollowTheReference(t *testing.T) {
	for _, maxLen := range []int64{5, 7, 20, 100} {
		const n = 50_000
		ref, pooled := make([]string, n), make([]string, n)
		r1, r2 := rng{state: 1}, rng{state: 2}
		for i := range n {
			ref[i] = string(appendWord(nil, &r1, maxLen, ' '))
			pooled[i] = pooledWord(wordPool(), &r2, maxLen)
		}
		a, b := statsOf(ref), statsOf(pooled)
		if math.Abs(a.meanLen-b.meanLen) > 0.02*a.meanLen+0.05 {
			t.Errorf("max %d: mean length %.3f pooled, %.3f reference", maxLen, b.meanLen, a.meanLen)
		}
		if math.Abs(a.withSpace-b.withSpace) > 0.02 {
			t.Errorf("max %d: %.3f of pooled words hold a space, %.3f of the reference's", maxLen, b.withSpace, a.withSpace)
		}
		for i := range a.letters {
			if math.Abs(a.letters[i]-b.letters[i]) > 0.1/26 {
				t.Errorf("max %d: letter %c is %.4f of pooled letters, %.4f of the reference's", maxLen, 'a'+i, b.letters[i], a.letters[i])
			}
		}
	}
}

func TestPooledCreditCardShape(t *testing.T) {
	r := rng{state: 3}
	var digits [10]int
	for range 10_000 {
		c := pooledCreditCard(cardPool(), &r)
		if len(c) != 19 || c[4] != ' ' || c[9] != ' ' || c[14] != ' ' {
			t.Fatalf("credit card %q: want four groups of four digits", c)
		}
		for i, d := range []byte(c) {
			if i%5 != 4 {
				digits[d-'0']++
			}
		}
	}
	for d, n := range digits { // 16,000 of each expected
		if n < 15_000 || n > 17_000 {
			t.Errorf("digit %d drawn %d times of 160,000", d, n)
		}
	}
}

// TestPriceFollowsExp checks the table-and-series price against the
// reference's formula, 10^(6u) * 100 rounded, computed with math.Exp from
// the same random word: at most one cent apart, and within [100, 1e8].
func TestPriceFollowsExp(t *testing.T) {
	r := rng{state: 4}
	off := 0
	for range 200_000 {
		x := r
		u := float64(x.next()>>11) * (1.0 / (1 << 53))
		want := int64(math.Round(math.Exp(u*6*math.Ln10) * 100))
		got := r.price()
		if got < 100 || got > 100_000_000 || got-want > 1 || want-got > 1 {
			t.Fatalf("price %d for u=%v, want %d", got, u, want)
		}
		if got != want {
			off++
		}
	}
	if off > 20 { // about 2^-43 * 1024 * 1e8 relative: a handful at most
		t.Errorf("%d of 200,000 prices one cent off the formula", off)
	}
}

// TestChannels checks the bids' channels: half through the four hot ones,
// a quarter of that each, the rest spread over channel-0 to channel-9999,
// and every URL the shape the reference gives it.
func TestChannels(t *testing.T) {
	c := testConfig(200_000)
	perChannel := map[string]int{}
	bids := 0
	for e := range NewGenerator(c).All() {
		if !e.IsBid() {
			continue
		}
		b := e.Bid()
		bids++
		perChannel[b.Channel]++
		if !strings.HasPrefix(b.URL, "https://www.nexmark.com/") || !strings.Contains(b.URL, "item.htm?query=1") {
			t.Fatalf("channel %s: URL %q", b.Channel, b.URL)
		}
	}
	hot := 0
	for _, name := range hotChannels {
		n := perChannel[name]
		hot += n
		if share := float64(n) / float64(bids); share < 0.12 || share > 0.13 {
			t.Errorf("%s carries %.3f of the bids, want 1/8", name, share)
		}
	}
	cold := len(perChannel) - len(hotChannels)
	if share := float64(hot) / float64(bids); share < 0.49 || share > 0.51 {
		t.Errorf("hot channels carry %.3f of the bids, want 1/2", share)
	}
	// About 92,000 cold bids over 10,000 channels: all but a few used.
	if cold < 9_900 || cold > numChannels {
		t.Errorf("%d distinct cold channels, want nearly all %d", cold, numChannels)
	}
	tab := channelTable()
	for i := range int64(len(hotChannels) + numChannels) {
		name, url := tab.get(i)
		if i >= int64(len(hotChannels)) && name != "channel-"+strconv.Itoa(int(i)-len(hotChannels)) {
			t.Fatalf("channel %d is named %q", i, name)
		}
		if !strings.HasPrefix(url, "https://www.nexmark.com/") {
			t.Fatalf("channel %d: URL %q", i, url)
		}
	}
}
