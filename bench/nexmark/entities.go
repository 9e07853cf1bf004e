package nexmark

// Each method below writes the event of slot s at event time ts into e,
// drawing from r. Every string is a slice of shared text (text.go), so none
// allocates, and each writes the whole Event, so e may hold an old event.

func (p *plan) person(e *Event, s slot, ts int64, r *rng) {
	name := fullNames[r.intn(int64(len(fullNames)))]
	email := p.emails[r.intn(emailPoolSize)]
	card := pooledCreditCard(p.cards, r)
	city := usCities[r.intn(int64(len(usCities)))]
	state := usStates[r.intn(int64(len(usStates)))]

	size := 8 + len(name) + len(email) + len(card) + len(city) + len(state)
	*e = Event{
		Kind: KindPerson,
		num:  [7]int64{numID: p.lastPerson(s) + p.c.FirstPersonID, numDateTime: ts},
		str: [6]string{strA: name, strB: email, strCard: card, strCity: city, strState: state,
			strExtra: p.extraText(r, size, p.c.AvgPersonByteSize)},
	}
}

func (p *plan) auction(e *Event, s slot, ts int64, r *rng) {
	lastPerson := p.lastPerson(s)
	seller := hotSeller(lastPerson)
	if hot, pick := r.split(); lemire32(hot, int64(p.c.HotSellersRatio)) == 0 {
		seller = p.randomPerson(lastPerson, pick)
	}
	category := p.c.FirstCategoryID + r.intn(int64(p.c.NumCategories))
	initialBid := r.price()
	expires := ts + p.auctionLength(s.m, ts, r)

	name := pooledWord(p.words, r, 20)
	desc := pooledWord(p.words, r, 100)
	reserve := initialBid + r.price()

	size := 8 + len(name) + len(desc) + 8 + 8 + 8 + 8 + 8
	*e = Event{
		Kind: KindAuction,
		num: [7]int64{numID: p.lastAuction(s) + p.c.FirstAuctionID, numDateTime: ts, numA: initialBid, numB: reserve,
			numExpires: expires, numSeller: seller + p.c.FirstPersonID, numCategory: category},
		str: [6]string{strA: name, strB: desc, strExtra: p.extraText(r, size, p.c.AvgAuctionByteSize)},
	}
}

// bidSize is what a bid's fields count towards its size: the reference
// counts only its four numbers.
const bidSize = 8 + 8 + 8 + 8

// bid is the hot path: 46 events in 50. It takes five steps of the random
// stream, whatever it draws: each step serves two draws of 32 bits (see
// rng.split and lemire32), and the random auction and bidder are drawn
// whether or not the hot ones are taken, so that the choices are selects,
// not branches the processor mispredicts half the time.
func (p *plan) bid(e *Event, s slot, ts int64, r *rng) {
	hotA, hotB := r.split()
	pickA, pickB := r.split()
	lastAuction, lastPerson := p.lastAuction(s), p.lastPerson(s)
	auction := hotAuction(lastAuction)
	if lemire32(hotA, int64(p.c.HotAuctionRatio)) == 0 {
		auction = p.randomAuction(lastAuction, pickA)
	}
	bidder := hotBidder(lastPerson)
	if lemire32(hotB, int64(p.c.HotBiddersRatio)) == 0 {
		bidder = p.randomPerson(lastPerson, pickB)
	}
	price := r.price()

	// Half the bids go through one of the hot channels, as in the reference
	// (its HOT_CHANNELS_RATIO 2): the word's top bit picks the half.
	pick, index := r.split()
	ch := int64(len(hotChannels)) + lemire32(index, numChannels)
	if pick>>31 == 0 {
		ch = lemire32(index, int64(len(hotChannels)))
	}
	name, url := p.channels.get(ch)

	extra := p.bidExtraText(r)
	// Slot by slot: an array literal is built aside on the stack, word by
	// word, and then copied into e sixteen bytes at a time, and those wide
	// reads of narrow writes just made stall the processor.
	e.Kind = KindBid
	e.num[numID] = auction + p.c.FirstAuctionID
	e.num[numDateTime] = ts
	e.num[numA] = bidder + p.c.FirstPersonID
	e.num[numB] = price
	e.num[numExpires], e.num[numSeller], e.num[numCategory] = 0, 0, 0
	e.str[strA] = name
	e.str[strB] = url
	e.str[strCard], e.str[strCity], e.str[strState] = "", "", ""
	e.str[strExtra] = extra
}
