package codec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type addrV1 struct {
	City string
	Zip  int
}

type addrV2 struct {
	Zip     int
	City    string
	Country string
}

type orderV1 struct {
	ID    int64
	Note  string
	Items []addrV1
	Tags  map[string]addrV1
	Home  *addrV1
	When  time.Time
	hid   int
}

type orderV2 struct {
	Extra bool
	hid   int
	Home  *addrV2
	Items []addrV2
	ID    int64
	Tags  map[string]addrV2
}

type changedV2 struct {
	ID   string
	Note string
}

type nestedChangedV2 struct {
	ID    int64
	Items []struct{ City []byte }
}

// transcode writes v under T's schema and reads it back as U.
func transcode[T, U any](t *testing.T, v T) (U, error) {
	t.Helper()
	var zero U
	old, err := Schema(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewTranscoder(old, reflect.TypeFor[U]())
	if err != nil {
		return zero, err
	}
	tc, _ := For[T]()
	src := tc.Append(nil, v)
	src = append(src, 0xAA) // what follows must not be consumed
	if x == nil {
		uc, _ := For[U]()
		u, _, err := uc.Decode(src)
		return u, err
	}
	out, n, err := x.Transcode(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(src)-1 {
		t.Fatalf("consumed %d of %d bytes", n, len(src)-1)
	}
	uc, _ := For[U]()
	u, m, err := uc.Decode(out)
	if err != nil || m != len(out) {
		t.Fatalf("decode transcoded: %d of %d, %v", m, len(out), err)
	}
	return u, nil
}

func TestTranscodeEvolvesFieldsByName(t *testing.T) {
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v1 := orderV1{
		ID: 7, Note: "dropped", When: when, hid: 3,
		Items: []addrV1{{"Oslo", 150}, {"Bergen", 5003}},
		Tags:  map[string]addrV1{"home": {"Lund", 22}},
		Home:  &addrV1{"Oslo", 151},
	}
	got, err := transcode[orderV1, orderV2](t, v1)
	if err != nil {
		t.Fatal(err)
	}
	want := orderV2{
		hid: 3, ID: 7,
		Home:  &addrV2{Zip: 151, City: "Oslo"},
		Items: []addrV2{{Zip: 150, City: "Oslo"}, {Zip: 5003, City: "Bergen"}},
		Tags:  map[string]addrV2{"home": {Zip: 22, City: "Lund"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestTranscodeCases(t *testing.T) {
	t.Run("add field", func(t *testing.T) {
		got, err := transcode[addrV1, struct {
			City string
			Zip  int
			New  []int
		}](t, addrV1{"A", 1})
		if err != nil || got.City != "A" || got.Zip != 1 || got.New != nil {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("remove field", func(t *testing.T) {
		got, err := transcode[addrV1, struct{ Zip int }](t, addrV1{"A", 9})
		if err != nil || got.Zip != 9 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("reorder", func(t *testing.T) {
		got, err := transcode[addrV1, struct {
			Zip  int
			City string
		}](t, addrV1{"B", 4})
		if err != nil || got.Zip != 4 || got.City != "B" {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("list state", func(t *testing.T) {
		got, err := transcode[[]addrV1, []addrV2](t, []addrV1{{"C", 2}, {"D", 3}})
		want := []addrV2{{Zip: 2, City: "C"}, {Zip: 3, City: "D"}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("unchanged", func(t *testing.T) {
		old, _ := Schema(reflect.TypeFor[addrV1]())
		x, err := NewTranscoder(old, reflect.TypeFor[struct {
			City string
			Zip  int
		}]())
		if err != nil || x != nil {
			t.Fatalf("same shape under another type name: %v, %v", x, err)
		}
	})
}

func TestTranscodeRefusesChangedTypes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		old        reflect.Type
		cur        reflect.Type
		field, msg string
	}{
		{"scalar", reflect.TypeFor[orderV1](), reflect.TypeFor[changedV2](), "ID", "field ID (value.ID) changed type from int64 to string"},
		{"nested", reflect.TypeFor[orderV1](), reflect.TypeFor[nestedChangedV2](), "City", "field City (value.Items[].City) changed type from string to []uint8"},
		{"top", reflect.TypeFor[addrV1](), reflect.TypeFor[[]addrV1](), "", "value changed type from struct to []codec.addrV1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, _ := Schema(tc.old)
			_, err := NewTranscoder(old, tc.cur)
			var se *SchemaError
			if !errors.As(err, &se) || !errors.Is(err, ErrSchemaChanged) || se.Field != tc.field {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

func TestSchemaCorrupt(t *testing.T) {
	old, _ := Schema(reflect.TypeFor[orderV1]())
	for i := range len(old) - 1 {
		if _, err := NewTranscoder(old[:i], reflect.TypeFor[orderV2]()); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("prefix %d: %v", i, err)
		}
	}
}

func TestSchemaRecursive(t *testing.T) {
	type node struct {
		V    int
		Next *node
	}
	s, err := Schema(reflect.TypeFor[node]())
	if err != nil {
		t.Fatal(err)
	}
	if x, err := NewTranscoder(s, reflect.TypeFor[node]()); x != nil || err != nil {
		t.Fatal(x, err)
	}
}
