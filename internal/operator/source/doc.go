// Package source holds the source operators behind package weir's split
// sources (FromSplits and the sources built on it) and FromIter: the
// split source that reads one split after the other, the one whose Reader
// reads all its splits side by side with a watermark per split
// (splitoutputs.go), their split enumerators on the JobMaster, and the
// iterator source.
//
// It knows nothing of package weir: a weir.SplitSource arrives as a Spec,
// whose interfaces have the method sets of weir's (weir.SplitOutput and
// weir.ReadStatus are this package's types), so that the user's readers
// are called as before.
package source
