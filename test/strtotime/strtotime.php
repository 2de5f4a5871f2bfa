<?php
// Reads {"zones": [...], "instants": [unix seconds...], "expressions": [...]} on stdin and
// prints, for every zone, instant and expression, strtotime's answer (Unix seconds or false)
// as JSON: results[zone][instant][expression]. One process for the whole corpus.
$input = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$results = [];
foreach ($input['zones'] as $zone) {
    date_default_timezone_set($zone);
    $byInstant = [];
    foreach ($input['instants'] as $instant) {
        $answers = [];
        foreach ($input['expressions'] as $expression) {
            $answers[] = strtotime($expression, $instant);
        }
        $byInstant[] = $answers;
    }
    $results[] = $byInstant;
}
echo json_encode(['php' => PHP_VERSION, 'tzdata' => timezone_version_get(), 'results' => $results], JSON_THROW_ON_ERROR);
