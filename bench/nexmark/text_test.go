package nexmark

import (
	"math"
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
