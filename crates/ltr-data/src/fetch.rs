//! Getting files into the cache. (Being implemented.)
