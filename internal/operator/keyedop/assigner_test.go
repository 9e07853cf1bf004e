package keyedop

import (
	"slices"
	"strings"
	"testing"
)

func TestAssign(t *testing.T) {
	type w = Window
	tests := []struct {
		name string
		a    Assigner
		ts   int64
		want []Window // latest first
	}{
		{"tumbling", Assigner{Size: 10, Slide: 10}, 25, []w{{20, 30}}},
		{"tumbling at a start", Assigner{Size: 10, Slide: 10}, 20, []w{{20, 30}}},
		{"tumbling at a max timestamp", Assigner{Size: 10, Slide: 10}, 29, []w{{20, 30}}},
		{"tumbling before the epoch", Assigner{Size: 10, Slide: 10}, -1, []w{{-10, 0}}},
		{"sliding", Assigner{Size: 10, Slide: 5}, 12, []w{{10, 20}, {5, 15}}},
		{"sliding, slide does not divide size", Assigner{Size: 10, Slide: 4}, 9, []w{{8, 18}, {4, 14}, {0, 10}}},
		{"offset", Assigner{Size: 10, Slide: 10, Offset: 3}, 12, []w{{3, 13}}},
		{"offset after ts", Assigner{Size: 10, Slide: 10, Offset: 3}, 2, []w{{-7, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Assign(tt.a, []Window(nil), tt.ts)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Assign(%+v, %d) = %v, want %v", tt.a, tt.ts, got, tt.want)
			}
			for _, win := range got {
				if tt.ts < win.Start || tt.ts > MaxTimestamp(win) {
					t.Fatalf("window %v does not hold %d", win, tt.ts)
				}
			}
		})
	}
}

// A type with Window's underlying type is assigned its own windows.
func TestAssignNamedWindowType(t *testing.T) {
	type named struct{ Start, End int64 }
	got := Assign(Assigner{Size: 10, Slide: 10}, []named{{1, 2}}, 15)
	if want := []named{{1, 2}, {10, 20}}; !slices.Equal(got, want) {
		t.Fatalf("Assign appended %v, want %v", got, want)
	}
	if m := MaxTimestamp(got[1]); m != 19 {
		t.Fatalf("MaxTimestamp = %d, want 19", m)
	}
}

func TestAssignerValidate(t *testing.T) {
	tests := []struct {
		a       Assigner
		wantErr string // "" for valid
	}{
		{Assigner{Size: 10, Slide: 10}, ""},
		{Assigner{Size: 10, Slide: 1}, ""},
		{Assigner{Size: 0, Slide: 10}, "must be at least 1ms"},
		{Assigner{Size: 10, Slide: -1}, "must be at least 1ms"},
		{Assigner{Size: 10, Slide: 11}, "slide 11ms is larger than its size 10ms"},
	}
	for _, tt := range tests {
		err := tt.a.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", tt.a, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%+v: error %v, want one with %q", tt.a, err, tt.wantErr)
		}
	}
}
