/*
 * Quiver's grammar of SQL scalar expressions: PostgreSQL's operators and precedence, DataFusion's and
 * DuckDB's extra forms. docs/expressions.md has the precedence table and what each form becomes.
 *
 * Written for linear time: no left recursion (each precedence level is a loop, so a chain of 100,000
 * terms is one rule invocation with 100,000 children), and every decision is settled by a few tokens of
 * lookahead (alternatives are left-factored), so SLL prediction never scans ahead over a whole operand.
 * Nesting (parentheses, brackets, CASE) recurses; its depth is bounded before parsing (SqlLimits).
 */
grammar QuiverSql;

options { caseInsensitive = true; }

@header {
// Generated from QuiverSql.g4 by the ANTLR tool at build time; do not edit.
}

// ------------------------------------------------------------------ the top

singleExpression : expression (AS alias=identifier)? EOF ;

expression : orExpression ;

orExpression : andExpression (OR andExpression)* ;

andExpression : notExpression (AND notExpression)* ;

notExpression : NOT* isExpression ;

isExpression : comparison isTest* ;

isTest
    : IS NOT? (NULL | TRUE | FALSE | UNKNOWN)
    | IS NOT? DISTINCT FROM comparison
    | ISNULL
    | NOTNULL
    ;

comparison : predicate (comparisonOperator comparisonOperand)* ;

comparisonOperand
    : quantifier=(ANY | ALL | SOME) '(' (query | expression) ')'
    | predicate
    ;

comparisonOperator : EQ | DOUBLE_EQ | NEQ | NEQ2 | LT | LTE | GT | GTE ;

predicate : otherExpression predicateTest* ;

predicateTest
    : NOT? BETWEEN (SYMMETRIC | ASYMMETRIC)? low=otherExpression AND high=otherExpression
    | NOT? IN '(' (query | expression (',' expression)*) ')'
    | NOT? kind=(LIKE | ILIKE) pattern=otherExpression (ESCAPE escape=otherExpression)?
    | NOT? SIMILAR TO pattern=otherExpression (ESCAPE escape=otherExpression)?
    ;

// PostgreSQL's "any other operator" level: one precedence, left to right.
otherExpression : additive (otherOperator additive)* ;

otherOperator
    : CONCAT | PIPE | AMPERSAND | HASH | SHIFT_LEFT | SHIFT_RIGHT
    | TILDE | TILDE_STAR | NOT_TILDE | NOT_TILDE_STAR | CONTAINS | CONTAINED_BY | OVERLAP
    ;

additive : multiplicative ((PLUS | MINUS) multiplicative)* ;

multiplicative : power ((STAR | SLASH | PERCENT) power)* ;

power : atTimeZone (CARET atTimeZone)* ;

atTimeZone : unary (AT TIME ZONE unary)* ;

unary : (PLUS | MINUS | TILDE)* postfix ;

postfix : primary postfixOperator* ;

postfixOperator
    : DOUBLE_COLON dataType
    | '[' subscript ']'
    | '.' identifier ('(' callArguments? ')')?
    ;

// Left-factored: l[i] and l[a:b] share their first operand, so no decision looks past it.
subscript : lower=expression? (':' upper=expression? (':' stride=expression?)?)? ;

// ------------------------------------------------------------------ operands

primary
    : literal                                                                      # literalPrimary
    | INTERVAL intervalValue intervalUnit?                                         # intervalPrimary
    | simpleType STRING                                                            # typedLiteral
    | ARRAY '[' (expression (',' expression)*)? ']'                                # arrayPrimary
    | '[' (expression (',' expression)*)? ']'                                      # arrayPrimary
    | MAP '{' (mapEntry (',' mapEntry)*)? '}'                                      # mapPrimary
    | CASE operand=expression? whenClause+ (ELSE otherwise=expression)? END        # casePrimary
    | kind=(CAST | TRY_CAST) '(' expression AS dataType ')'                        # castPrimary
    | EXTRACT '(' field=extractField FROM expression ')'                           # extractPrimary
    | POSITION '(' needle=otherExpression IN haystack=otherExpression ')'           # positionPrimary
    | SUBSTRING '(' string=expression (FROM from=expression)? (FOR count=expression)? (',' rest+=expression)* ')' # substringPrimary
    | TRIM '(' trimSpec=(BOTH | LEADING | TRAILING)? first=expression? (FROM from=expression)? (',' rest+=expression)* ')' # trimPrimary
    | OVERLAY '(' string=expression (PLACING placing=expression FROM from=expression (FOR count=expression)?)? (',' rest+=expression)* ')' # overlayPrimary
    | EXISTS '(' query ')'                                                         # existsPrimary
    | '(' query ')'                                                                # subqueryPrimary
    | '(' expression (',' expression)* queryTail? ')'                              # parenthesizedPrimary
    | functionName '(' callArguments? ')' filterClause? overClause?                # callPrimary
    | identifier                                                                   # columnPrimary
    | PARAMETER                                                                    # parameterPrimary
    | STAR                                                                         # starPrimary
    ;

literal
    : INTEGER_VALUE | DECIMAL_VALUE | STRING | ESCAPE_STRING | HEX_STRING | TRUE | FALSE | NULL
    ;

intervalValue : STRING | sign=(PLUS | MINUS)? (INTEGER_VALUE | DECIMAL_VALUE) ;

intervalUnit : IDENTIFIER (TO IDENTIFIER)? ;

mapEntry : key=expression ':' value=expression ;

whenClause : WHEN when=expression THEN then=expression ;

extractField : identifier | STRING ;

callArguments
    : STAR
    | setQuantifier=(DISTINCT | ALL)? argument (',' argument)* (ORDER BY sortItem (',' sortItem)*)?
    ;

argument : (name=identifier ARROW)? expression ;

filterClause : FILTER '(' WHERE expression ')' ;

overClause : OVER (identifier | '(' windowBody* ')') ;

windowBody : '(' windowBody* ')' | ~(LPAREN | RPAREN) ;

// ------------------------------------------------------------------ types

dataType : typeName (arraySuffix)* ;

arraySuffix : '[' ']' | ARRAY ;

typeName : (identifier | INTERVAL) typeWord* ('(' typeArgument (',' typeArgument)* ')' typeWord*)? ;

typeWord : PRECISION | UNSIGNED | VARYING | (WITH | WITHOUT) TIME ZONE ;

typeArgument
    : INTEGER_VALUE
    | fieldName=identifier dataType
    | dataType
    ;

// A typed literal's type: a name and numbers, no arrays or structs ('...'::INT[] casts a string instead).
simpleType : identifier typeWord* ('(' INTEGER_VALUE (',' INTEGER_VALUE)* ')' typeWord*)? ;

// ------------------------------------------------------------------ scalar subqueries

// Wider than what Quiver runs, so that each clause it does not take is named in the error.
query : (WITH identifier AS '(' query ')' (',' identifier AS '(' query ')')*)? queryTerm (setOperator queryTerm)* queryTail? ;

setOperator : (UNION | INTERSECT | EXCEPT) (ALL | DISTINCT)? ;

queryTerm
    : SELECT selectQuantifier? selectItem (',' selectItem)* (INTO identifier)?
      (FROM fromItem (',' fromItem)*)?
      (WHERE where=expression)?
      (GROUP BY expression (',' expression)*)?
      (HAVING having=expression)?
      (QUALIFY qualify=expression)?
    | VALUES expression (',' expression)*
    ;

queryTail : queryClause+ ;

queryClause
    : ORDER BY sortItem (',' sortItem)*
    | LIMIT limit=limitValue (',' limitValue)?
    | OFFSET expression (ROW | ROWS)?
    | FETCH (FIRST | NEXT) expression? (ROW | ROWS) ONLY
    | FOR UPDATE
    ;

limitValue : ALL | expression ;

selectQuantifier : ALL | DISTINCT (ON '(' expression (',' expression)* ')')? | TOP INTEGER_VALUE ;

selectItem : STAR | identifier '.' STAR | expression (AS? alias=identifier)? ;

sortItem : expression (ASC | DESC)? (NULLS (FIRST | LAST))? ;

fromItem : tableReference joinClause* ;

tableReference
    : qualifiedName tableSample? (AS? alias=identifier)?
    | '(' query ')' (AS? alias=identifier)?
    ;

tableSample : TABLESAMPLE identifier '(' expression ')' ;

joinClause : (NATURAL? (INNER | CROSS | (LEFT | RIGHT | FULL) OUTER?))? JOIN tableReference (ON expression | USING '(' identifier (',' identifier)* ')')? ;

qualifiedName : identifier ('.' identifier)* ;

// ------------------------------------------------------------------ names

// Not the words with a form of their own (TRIM(...), EXTRACT(...), ...): a decision between such a form and a plain
// call would have to look past all the arguments.
functionName : IDENTIFIER | QUOTED_IDENTIFIER | BACKQUOTED_IDENTIFIER | nonReserved | LEFT | RIGHT ;

identifier : IDENTIFIER | QUOTED_IDENTIFIER | BACKQUOTED_IDENTIFIER | nonReserved | specialFormName ;

specialFormName : EXTRACT | POSITION | SUBSTRING | TRIM | OVERLAY ;

// Keywords that are names where the grammar expects a name (PostgreSQL's non-reserved words, roughly).
nonReserved
    : ASC | ASYMMETRIC | AT | DESC | ESCAPE | FETCH | FILTER | FIRST | LAST | MAP | NEXT | NULLS
    | ONLY | OVER | PRECISION | QUALIFY | ROW | ROWS | SYMMETRIC | TIME | TOP | UNKNOWN | UNSIGNED | UPDATE | VALUES
    | VARYING | WITHOUT | ZONE | BOTH | LEADING | TRAILING | PLACING | TABLESAMPLE
    ;

// ------------------------------------------------------------------ tokens

ALL : 'ALL';
AND : 'AND';
ANY : 'ANY';
ARRAY : 'ARRAY';
AS : 'AS';
ASC : 'ASC';
ASYMMETRIC : 'ASYMMETRIC';
AT : 'AT';
BETWEEN : 'BETWEEN';
BOTH : 'BOTH';
BY : 'BY';
CASE : 'CASE';
CAST : 'CAST';
CROSS : 'CROSS';
DESC : 'DESC';
DISTINCT : 'DISTINCT';
ELSE : 'ELSE';
END : 'END';
ESCAPE : 'ESCAPE';
EXCEPT : 'EXCEPT';
EXISTS : 'EXISTS';
EXTRACT : 'EXTRACT';
FALSE : 'FALSE';
FETCH : 'FETCH';
FILTER : 'FILTER';
FIRST : 'FIRST';
FOR : 'FOR';
FROM : 'FROM';
FULL : 'FULL';
GROUP : 'GROUP';
HAVING : 'HAVING';
ILIKE : 'ILIKE';
IN : 'IN';
INNER : 'INNER';
INTERSECT : 'INTERSECT';
INTERVAL : 'INTERVAL';
INTO : 'INTO';
IS : 'IS';
ISNULL : 'ISNULL';
JOIN : 'JOIN';
LAST : 'LAST';
LEADING : 'LEADING';
LEFT : 'LEFT';
LIKE : 'LIKE';
LIMIT : 'LIMIT';
MAP : 'MAP';
NATURAL : 'NATURAL';
NEXT : 'NEXT';
NOT : 'NOT';
NOTNULL : 'NOTNULL';
NULL : 'NULL';
NULLS : 'NULLS';
OFFSET : 'OFFSET';
ON : 'ON';
ONLY : 'ONLY';
OR : 'OR';
ORDER : 'ORDER';
OUTER : 'OUTER';
OVER : 'OVER';
OVERLAY : 'OVERLAY';
PLACING : 'PLACING';
POSITION : 'POSITION';
PRECISION : 'PRECISION';
QUALIFY : 'QUALIFY';
RIGHT : 'RIGHT';
ROW : 'ROW';
ROWS : 'ROWS';
SELECT : 'SELECT';
SIMILAR : 'SIMILAR';
SOME : 'SOME';
SUBSTRING : 'SUBSTRING';
SYMMETRIC : 'SYMMETRIC';
TABLESAMPLE : 'TABLESAMPLE';
THEN : 'THEN';
TIME : 'TIME';
TO : 'TO';
TOP : 'TOP';
TRAILING : 'TRAILING';
TRIM : 'TRIM';
TRUE : 'TRUE';
TRY_CAST : 'TRY_CAST';
UNION : 'UNION';
UNKNOWN : 'UNKNOWN';
UNSIGNED : 'UNSIGNED';
UPDATE : 'UPDATE';
USING : 'USING';
VALUES : 'VALUES';
VARYING : 'VARYING';
WHEN : 'WHEN';
WHERE : 'WHERE';
WITH : 'WITH';
WITHOUT : 'WITHOUT';
ZONE : 'ZONE';

EQ : '=';
DOUBLE_EQ : '==';
NEQ : '<>';
NEQ2 : '!=';
LT : '<';
LTE : '<=';
GT : '>';
GTE : '>=';
PLUS : '+';
MINUS : '-';
STAR : '*';
SLASH : '/';
PERCENT : '%';
CARET : '^';
CONCAT : '||';
PIPE : '|';
AMPERSAND : '&';
HASH : '#';
SHIFT_LEFT : '<<';
SHIFT_RIGHT : '>>';
TILDE : '~';
TILDE_STAR : '~*';
NOT_TILDE : '!~';
NOT_TILDE_STAR : '!~*';
CONTAINS : '@>';
CONTAINED_BY : '<@';
OVERLAP : '&&';
DOUBLE_COLON : '::';
ARROW : '=>';
LPAREN : '(';
RPAREN : ')';
LBRACKET : '[';
RBRACKET : ']';
LBRACE : '{';
RBRACE : '}';
COMMA : ',';
DOT : '.';
COLON : ':';

// E'...' (C-style escapes) and X'...' (hex bytes) before the names, so that E and X followed by a quote are prefixes.
ESCAPE_STRING : 'E' '\'' ( ~['\\] | '\'\'' | '\\' . )* '\'' ;
HEX_STRING : 'X' '\'' ( ~'\'' )* '\'' ;
STRING : '\'' ( ~'\'' | '\'\'' )* '\'' ;

INTEGER_VALUE : DIGIT+ ;
DECIMAL_VALUE
    : DIGIT+ '.' DIGIT* EXPONENT?
    | '.' DIGIT+ EXPONENT?
    | DIGIT+ EXPONENT
    ;

PARAMETER : '?' | '$' DIGIT+ ;

IDENTIFIER : [\p{L}_] [\p{L}\p{N}_$]* ;
QUOTED_IDENTIFIER : '"' ( ~'"' | '""' )* '"' ;
BACKQUOTED_IDENTIFIER : '`' ( ~'`' | '``' )* '`' ;

fragment DIGIT : [0-9] ;
fragment EXPONENT : 'E' [+-]? DIGIT+ ;

LINE_COMMENT : '--' ~[\r\n]* -> channel(HIDDEN) ;
// An unterminated comment runs to the end of the text; SqlLexing reports it.
BLOCK_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* ( '*'+ '/' | '*'* ) -> channel(HIDDEN) ;
WS : [ \t\r\n\f\u000B\u00A0\u2028\u2029]+ -> channel(HIDDEN) ;

// Text no token starts with: reported by SqlLexing with its position, before the parser runs.
UNTERMINATED_STRING : [EX]? '\'' ( ~'\'' | '\'\'' )* ;
UNTERMINATED_IDENTIFIER : '"' ( ~'"' | '""' )* | '`' ( ~'`' | '``' )* ;
UNRECOGNIZED : . ;
