import { useEffect, useState } from 'react';

/**
 * Text typed into a search box, searched 200 ms after the last key (not on every key), and
 * the page of its results, back to the first whenever the searched text changes. Text that
 * comes back to what is searched already (the list just opened, or a key typed and taken back)
 * changes nothing: the page a user has moved to in the meantime stays.
 */
export function useTypedSearch(initial = '') {
  const [text, setText] = useState(initial);
  const [searched, setSearched] = useState(initial.trim());
  const [page, setPage] = useState(1);
  useEffect(() => {
    const wanted = text.trim();
    if (wanted === searched) return;
    const timer = setTimeout(() => {
      setSearched(wanted);
      setPage(1);
    }, 200);
    return () => clearTimeout(timer);
  }, [text, searched]);
  return { text, setText, searched, page, setPage };
}
