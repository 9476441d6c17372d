import { useEffect, useState } from 'react';

/**
 * Text typed into a search box, searched 200 ms after the last key (not on every key), and
 * the page of its results, back to the first whenever the searched text changes.
 */
export function useTypedSearch(initial = '') {
  const [text, setText] = useState(initial);
  const [searched, setSearched] = useState(initial.trim());
  const [page, setPage] = useState(1);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearched(text.trim());
      setPage(1);
    }, 200);
    return () => clearTimeout(timer);
  }, [text]);
  return { text, setText, searched, page, setPage };
}
