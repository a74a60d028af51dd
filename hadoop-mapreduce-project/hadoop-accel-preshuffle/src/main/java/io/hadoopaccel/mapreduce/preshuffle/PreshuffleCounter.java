package io.hadoopaccel.mapreduce.preshuffle;

/** Counters of the {@code Preshuffle} group, in maps (PUSH*) and reduces (the rest). */
public enum PreshuffleCounter {
  /** Map: segment bytes the reducers stored. */
  PUSHED_BYTES,
  /** Map: spill segments the reducers stored. */
  PUSHED_SEGMENTS,
  /** Map: reducers this map's whole output reached by push (a done marker was acknowledged). */
  PUSHES_COMPLETED,
  /** Map: reducers a push to failed or was refused; they pull this map's output. */
  PUSHES_ABANDONED,
  /** Map: reducers not reached before the drain timeout or with no receiver registered. */
  PUSHES_LEFT_TO_PULL,
  /** Map: reducers that got part of this map's output by push and pull the rest. */
  PUSHES_PARTLY_LEFT,
  /** Map: bytes written to leftover outputs, the segments left to be pulled. */
  LEFTOVER_BYTES,
  /** Reduce: pushed bytes received and checksummed. */
  RECEIVED_BYTES,
  /** Reduce: maps whose output came entirely by push and was merged without a fetch. */
  MAPS_FROM_PUSH,
  /** Reduce: maps fetched whole by pull after all (not pushed, or pushed and discarded). */
  MAPS_PULLED,
  /** Reduce: maps merged from the spills pushed plus the leftover spills pulled. */
  MAPS_PARTLY_PULLED,
  /** Reduce: received bytes thrown away: a failed, killed, obsolete or losing attempt's, or an
   *  incomplete push's. */
  DISCARDED_BYTES,
  /** Reduce: connections refused before any data was read (bad job token or wrong job). */
  REFUSED_CONNECTIONS,
  /** Either side: tasks that ran as stock because Preshuffle could not (one log line says why). */
  FALLBACKS
}
