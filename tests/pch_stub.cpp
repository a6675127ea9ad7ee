// The source of the tests' precompiled-header targets (tests/CMakeLists.txt, fone_test_pch_variant): the
// headers are the point; this file only gives each target something to compile.
