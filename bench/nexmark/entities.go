package nexmark

// Each constructor below builds the entity for adjusted event number m at
// event time ts, drawing from r. A person's or auction's random text is
// appended to one stack buffer and turned into one string that the fields
// slice; Extra is cut from a shared pool. So a bid costs one allocation and a
// person or auction two.

// Stack buffers for an event's text (not counting Extra); random words are
// bounded, so these never grow.
const (
	personBufSize  = 64
	auctionBufSize = 160
)

func (c Config) newPerson(m, ts int64, r *rng) *Person {
	var arr [personBufSize]byte
	b := arr[:0]
	name := fullNames[r.intn(int64(len(fullNames)))]

	lo := len(b)
	b = appendWord(b, r, 7, ' ')
	b = append(b, '@')
	b = appendWord(b, r, 5, ' ')
	b = append(b, ".com"...)
	email := mark(b, lo)

	lo = len(b)
	b = appendCreditCard(b, r)
	card := mark(b, lo)

	city := usCities[r.intn(int64(len(usCities)))]
	state := usStates[r.intn(int64(len(usStates)))]

	size := 8 + len(name) + (email.hi - email.lo) + (card.hi - card.lo) + len(city) + len(state)
	pad := extra(r, size, c.AvgPersonByteSize)

	text := string(b)
	return &Person{
		ID:           c.lastPerson(m) + c.FirstPersonID,
		Name:         name,
		EmailAddress: email.of(text),
		CreditCard:   card.of(text),
		City:         city,
		State:        state,
		DateTime:     ts,
		Extra:        pad,
	}
}

func (c Config) newAuction(m, ts int64, r *rng) *Auction {
	var seller int64
	if r.intn(int64(c.HotSellersRatio)) > 0 {
		seller = c.hotSeller(m)
	} else {
		seller = c.randomPerson(m, r)
	}
	category := c.FirstCategoryID + r.intn(int64(c.NumCategories))
	initialBid := r.price()
	expires := ts + c.auctionLengthMs(m, ts, r)

	var arr [auctionBufSize]byte
	b := arr[:0]
	b = appendWord(b, r, 20, ' ')
	name := mark(b, 0)
	lo := len(b)
	b = appendWord(b, r, 100, ' ')
	desc := mark(b, lo)
	reserve := initialBid + r.price()

	size := 8 + (name.hi - name.lo) + (desc.hi - desc.lo) + 8 + 8 + 8 + 8 + 8
	pad := extra(r, size, c.AvgAuctionByteSize)

	text := string(b)
	return &Auction{
		ID:          c.lastAuction(m) + c.FirstAuctionID,
		ItemName:    name.of(text),
		Description: desc.of(text),
		InitialBid:  initialBid,
		Reserve:     reserve,
		DateTime:    ts,
		Expires:     expires,
		Seller:      seller + c.FirstPersonID,
		Category:    category,
		Extra:       pad,
	}
}

func (c Config) newBid(m, ts int64, r *rng) *Bid {
	var auction, bidder int64
	if r.intn(int64(c.HotAuctionRatio)) > 0 {
		auction = c.hotAuction(m)
	} else {
		auction = c.randomAuction(m, r)
	}
	if r.intn(int64(c.HotBiddersRatio)) > 0 {
		bidder = c.hotBidder(m)
	} else {
		bidder = c.randomPerson(m, r)
	}
	price := r.price()

	table := channelTable()
	var ch channel
	if r.intn(hotChannelsRatio) > 0 {
		ch = table[r.intn(int64(len(hotChannels)))]
	} else {
		ch = table[int64(len(hotChannels))+r.intn(numChannels)]
	}

	// The reference counts only the four numbers towards a bid's size.
	pad := extra(r, 8+8+8+8, c.AvgBidByteSize)
	return &Bid{
		Auction:  auction + c.FirstAuctionID,
		Bidder:   bidder + c.FirstPersonID,
		Price:    price,
		Channel:  ch.name,
		URL:      ch.url,
		DateTime: ts,
		Extra:    pad,
	}
}
